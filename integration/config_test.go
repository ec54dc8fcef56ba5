package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCRLFileOptional (issue 16, F1): a bank with its own CAs and no CRL
// file starts (OBGW_CRL empty), and one whose CRL file its CAs did not
// issue is told which file, which issuer and what to do.
func TestCRLFileOptional(t *testing.T) {
	validate := func(env ...string) (string, error) {
		cmd := exec.Command(binary, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		// A production deployment, with its identity provider.
		cmd.Env = append(append(cmd.Env, productionIdPEnv()...), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := validate("OBGW_QTSP_CAS=testdata/pki/tls-ca.pem", "OBGW_CRL="); err != nil {
		t.Fatalf("own CAs without a CRL file: %v\n%s", err, out)
	}
	out, err := validate("OBGW_QTSP_CAS=testdata/pki/tls-ca.pem")
	if err == nil {
		t.Fatal("a CRL file the CAs did not issue was accepted")
	}
	for _, want := range []string{"testdata/pki/qtsp-crl.pem", "CN=Test QTSP Issuing CA", "qtsp_cas testdata/pki/tls-ca.pem", "OBGW_CRL="} {
		if !strings.Contains(out, want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
}
