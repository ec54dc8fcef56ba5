package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/obgw/obgw/testpki"
)

// TestCRLFileOptional (issue 16, F1): a bank with its own CAs and no CRL
// file starts (OBGW_CRL empty), and one whose CRL file its CAs did not
// issue is told which file, which issuer and what to do.
func TestCRLFileOptional(t *testing.T) {
	validate := func(env ...string) (string, error) {
		cmd := exec.Command(binary, "validate", "--config", "Caddyfile", "--adapter", "caddyfile")
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		// A production deployment, with its identity provider and trust.
		cmd.Env = append(append(append(cmd.Env, pkiEnv(true)...), productionIdPEnv()...), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The production PKI's TLS CA stands for a bank's own CAs, which did
	// not issue its QTSP CRL.
	ownCAs := filepath.Join(productionPKIDir, testpki.FileTLSCA)
	crl := filepath.Join(productionPKIDir, testpki.FileQTSPCRL)
	if out, err := validate("OBGW_QTSP_CAS="+ownCAs, "OBGW_CRL="); err != nil {
		t.Fatalf("own CAs without a CRL file: %v\n%s", err, out)
	}
	out, err := validate("OBGW_QTSP_CAS=" + ownCAs)
	if err == nil {
		t.Fatal("a CRL file the CAs did not issue was accepted")
	}
	for _, want := range []string{crl, "CN=Example QTSP Issuing CA", "qtsp_cas " + ownCAs, "OBGW_CRL="} {
		if !strings.Contains(out, want) {
			t.Errorf("the error does not say %q:\n%s", want, out)
		}
	}
}
