package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// quickstartMarker precedes the README's TPP quickstart block.
const quickstartMarker = "<!-- tpp-quickstart"

// readmeBlock returns the first ```sh block after marker in README.md.
func readmeBlock(t *testing.T, marker string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, marker)
	if i < 0 {
		t.Fatalf("README.md has no %s block", marker)
	}
	j := strings.Index(s[i:], "```sh\n")
	if j < 0 {
		t.Fatalf("no ```sh block after %s", marker)
	}
	block := s[i+j+len("```sh\n"):]
	k := strings.Index(block, "```")
	if k < 0 {
		t.Fatal("the block does not end")
	}
	return block[:k]
}

// TestReadmeTPPQuickstart runs the README's TPP quickstart as it is
// written, in bash from the repository root, against the gateway of `make
// run` (the shipped Caddyfile, sandbox, embedded SQLite). Two things differ
// from a developer's terminal, and only in the text substituted: the
// gateway's address (a free port, not 8443) and the binary (this test's
// build, not bin/obgw).
func TestReadmeTPPQuickstart(t *testing.T) {
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	g.fixture("the README's commands: tpp-request and sca, not this harness's client")
	script := readmeBlock(t, quickstartMarker)
	script = strings.ReplaceAll(script, "https://localhost:8443", "https://"+g.addr)
	script = strings.ReplaceAll(script, "bin/obgw ", binary+" ")
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quickstart failed: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{"HTTP/2.0 200 OK", `"booked":[{"transactionId":"enc!!`, "\nsignature: verified by Test Bank AS\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasSuffix(got, "signature: verified by Test Bank AS\n") {
		t.Errorf("the verdict on the signature is not the last line:\n%s", got[max(0, len(got)-300):])
	}
}
