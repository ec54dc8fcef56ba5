package jsonscan

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/obgw/obgw"

// TestLayering holds the layering of the module (docs: style.md, "The
// shape we want") over `go list -deps`: gateway/ never imports backend/
// and the reverse, neither imports caddymodule/ or Caddy, tppcontext/,
// bgerror/ and openapi/ import neither, and this package, which both
// sides share, imports nothing but the standard library.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	under := func(pkg, dir string) bool {
		p := module + "/" + dir
		return pkg == p || strings.HasPrefix(pkg, p+"/")
	}
	caddy := func(pkg string) bool { return strings.HasPrefix(pkg, "github.com/caddyserver/") }
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		if !strings.HasPrefix(pkg, module) {
			continue
		}
		for _, dep := range deps {
			var bad bool
			switch {
			case under(pkg, "jsonscan"):
				bad = strings.Contains(strings.SplitN(dep, "/", 2)[0], ".")
			case under(pkg, "gateway"):
				bad = under(dep, "backend") || under(dep, "caddymodule") || caddy(dep)
			case under(pkg, "backend"):
				bad = under(dep, "gateway") || under(dep, "caddymodule") || caddy(dep)
			case under(pkg, "openapi"):
				// The interface's document, which the gateway serves and
				// the backend's tests check against, knows neither.
				bad = under(dep, "gateway") || under(dep, "backend") || under(dep, "caddymodule") || caddy(dep)
			case under(pkg, "tppcontext"), under(pkg, "bgerror"):
				bad = under(dep, "gateway") || under(dep, "backend") || under(dep, "caddymodule") || caddy(dep)
			}
			if bad {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
