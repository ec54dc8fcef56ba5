package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// readmeMarker is the comment before each ```sh block of the README: `run
// <journey> [expect="<text>"]` (the block runs, after the journey's
// earlier blocks, in one bash, and its output must hold the text), or
// `shown <why>` (what the block needs that a test cannot give, and which
// test covers it).
var readmeMarker = regexp.MustCompile(`^<!-- readme: (run|shown) ([^ ]+)(?: expect="((?:[^"\\]|\\.)*)")?.* -->$`)

// readmeJourney is the blocks of one journey, in order.
type readmeJourney struct {
	name    string
	script  strings.Builder
	expects []string
}

// TestReadmeBlocks (issue 33, 5): every ```sh block of the README is
// marked, and every block marked run runs as written, journey by
// journey, against the gateway of `make run` (the shipped Caddyfile,
// sandbox, test PKI, embedded SQLite), with only its addresses and the
// binary substituted; the quickstart is TestReadmeTPPQuickstart's.
func TestReadmeBlocks(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	var journeys []*readmeJourney
	byName := map[string]*readmeJourney{}
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sh" {
			continue
		}
		marker := ""
		for j := i - 1; j >= 0 && j >= i-2; j-- {
			if strings.HasPrefix(lines[j], "<!--") {
				marker = lines[j]
				break
			}
		}
		end := i + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		block := strings.Join(lines[i+1:end], "\n") + "\n"
		switch m := readmeMarker.FindStringSubmatch(marker); {
		case strings.HasPrefix(marker, quickstartMarker):
		case m == nil:
			t.Errorf("README.md:%d: a sh block without <!-- readme: run <journey> --> or <!-- readme: shown <why> -->", i+1)
		case m[1] == "run":
			j := byName[m[2]]
			if j == nil {
				j = &readmeJourney{name: m[2]}
				byName[m[2]] = j
				journeys = append(journeys, j)
			}
			j.script.WriteString(block)
			if m[3] != "" {
				j.expects = append(j.expects, strings.ReplaceAll(m[3], `\"`, `"`))
			}
		}
		i = end
	}
	if len(journeys) == 0 {
		t.Fatal("no README block is marked run")
	}
	g := startGateway(t, "Caddyfile", databaseEnv(t, "sqlite")...)
	g.fixture("the README's commands: tpp-request, sca and curl, not this harness's client")
	for _, j := range journeys {
		t.Run(j.name, func(t *testing.T) {
			script := j.script.String()
			script = strings.ReplaceAll(script, "https://localhost:8443", "https://"+g.addr)
			script = strings.ReplaceAll(script, "localhost:8081", g.health)
			script = strings.ReplaceAll(script, "bin/obgw ", binary+" ")
			cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
			cmd.Dir = repoRoot
			cmd.Env = g.cmd.Env // the settings the gateway runs with, as a reload needs
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the %s blocks failed: %v\n%s\n--- script:\n%s", j.name, err, out, script)
			}
			for _, want := range j.expects {
				if !strings.Contains(string(out), want) {
					t.Errorf("the output of the %s blocks lacks %q:\n%s", j.name, want, out)
				}
			}
		})
	}
}
