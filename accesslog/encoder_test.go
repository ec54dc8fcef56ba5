package accesslog

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// encoders are Caddy's filter encoder with the filters of body (the
// lines of a filter format block) and an Encoder with the same filters.
func encoders(t *testing.T, body string) (caddys, ours zapcore.Encoder) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	fe := new(logging.FilterEncoder)
	if err := fe.UnmarshalCaddyfile(caddyfile.NewTestDispenser("filter {\n" + body + "\n}")); err != nil {
		t.Fatal(err)
	}
	if err := fe.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	filters := make(map[string]Filter)
	for path, f := range fe.Fields {
		filters[path] = f
	}
	j := new(logging.JSONEncoder)
	if err := j.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(j, filters)
	if err != nil {
		t.Fatal(err)
	}
	return fe, enc
}

type point struct{ X, Y int }

func (p point) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddInt("x", p.X)
	enc.AddInt("y", p.Y)
	enc.AddString("label", "p")
	return nil
}

// entry encodes one entry with fields of every kind the encoder handles,
// nested objects and a header map among them.
func entry(t *testing.T, enc zapcore.Encoder) any {
	t.Helper()
	c := enc.Clone()
	r, _ := http.NewRequest("GET", "https://b.example/x?code=1&state=s", nil)
	r.RequestURI = "/x?code=1&state=s"
	r.RemoteAddr = "192.0.2.1:443"
	r.Header = http.Header{"X-Secret": {"s1", "s2"}, "X-Plain": {"p"}, "Authorization": {"a"}, "Psu-Ip-Address": {"192.0.2.77"}}
	zap.Object("request", caddyhttp.LoggableHTTPRequest{Request: r}).AddTo(c)
	buf, err := c.EncodeEntry(zapcore.Entry{Time: time.Unix(1, 0), Message: "m"}, []zapcore.Field{
		zap.String("s", "text"), zap.Int("n", 7), zap.Int64("n64", -1), zap.Int32("n32", 3), zap.Int16("n16", 4), zap.Int8("n8", 5),
		zap.Uint("u", 1), zap.Uint64("u64", 2), zap.Uint32("u32", 3), zap.Uint16("u16", 4), zap.Uint8("u8", 5), zap.Uintptr("up", 6),
		zap.Float64("f", 1.5), zap.Float32("f32", 2.5), zap.Bool("b", true), zap.Duration("d", time.Second),
		zap.Time("t", time.Unix(2, 0)), zap.Binary("bin", []byte{1, 2}), zap.ByteString("bs", []byte("bytes")),
		zap.Complex128("c128", 1+2i), zap.Complex64("c64", 3+4i), zap.Reflect("refl", map[string]int{"a": 1}),
		zap.Object("point", point{1, 2}), zap.Strings("list", []string{"a", "b"}),
		zap.Object("resp_headers", caddyhttp.LoggableHTTPHeader{Header: http.Header{"Location": {"/y?state=z&keep=1"}, "Set-Cookie": {"c"}}}),
		zap.Namespace("ns"), zap.String("inner", "v"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, buf.Bytes())
	}
	return v
}

// TestEqualsCaddysFilter: with filters on every kind of field, on whole
// objects, inside objects and on headers, the encoder writes what Caddy's
// filter encoder writes.
func TestEqualsCaddysFilter(t *testing.T) {
	for name, body := range map[string]string{
		"none":         ``,
		"top level":    "s hash\nn delete\nn64 replace x\nu16 delete\nf hash\nb delete\nd delete\nt delete\nbin delete\nbs hash\nc128 delete\nrefl delete\nlist hash\ninner hash",
		"whole object": "point delete\nrequest>headers delete",
		"inside":       "point>x delete\npoint>label hash\nrequest>remote_ip ip_mask 16 32\nrequest>uri query {\n delete code\n hash state\n}",
		"headers":      "request>headers>X-Secret hash\nrequest>headers>Authorization delete\nrequest>headers>Psu-Ip-Address ip_mask 24 64\nrequest>headers>X-Plain replace gone\nresp_headers>Location query {\n hash state\n}\nresp_headers>Set-Cookie hash",
		"regexp":       "request>headers>X-Plain regexp p q\ns regexp t T",
		"deep unused":  "request>headers>X-Secret>deeper delete\npoint>nothing hash",
	} {
		t.Run(name, func(t *testing.T) {
			caddys, ours := encoders(t, body)
			got, want := entry(t, ours), entry(t, caddys)
			if !reflect.DeepEqual(got, want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				t.Fatalf("Encoder wrote\n%s\nCaddy's filter encoder wrote\n%s", g, w)
			}
		})
	}
}

// TestHashIsCaddys: Hash writes what Caddy's hash filter writes, for
// strings and for arrays of them.
func TestHashIsCaddys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"", "a", "PSU-4711", strings.Repeat("x", 1000), "\x00\xff", "ünïcødé"}
	for range 200 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		inputs = append(inputs, string(b))
	}
	caddys := new(logging.HashFilter)
	for _, s := range inputs {
		if got, want := (Hash{}).Filter(zap.String("k", s)), caddys.Filter(zap.String("k", s)); !got.Equals(want) {
			t.Fatalf("hash of %q: %v, Caddy's %v", s, got, want)
		}
		h := hashHex(s)
		if string(h[:]) != caddys.Filter(zap.String("k", s)).String {
			t.Fatalf("hashHex of %q differs from Caddy's hash", s)
		}
	}
	arr := caddyhttp.LoggableStringArray(inputs)
	got := (Hash{}).Filter(zap.Array("k", arr)).Interface
	want := caddys.Filter(zap.Array("k", arr)).Interface
	if !reflect.DeepEqual(got, want) {
		t.Fatal("an array's hashes differ from Caddy's")
	}
	if !reflect.DeepEqual(arr, caddyhttp.LoggableStringArray(inputs)) {
		t.Fatal("Hash changed the array it was given")
	}
}

// TestCredentialIsCaddys: the headers written REDACTED are those Caddy
// redacts (by strings.ToLower), whatever their case or letters.
func TestCredentialIsCaddys(t *testing.T) {
	for _, name := range []string{"Cookie", "cookie", "COOKIE", "Set-Cookie", "Authorization", "Proxy-Authorization",
		"Cookies", "Cooki", "X-Cookie", "Authorisation", "Coo\u212Aie", "\u017Fet-cookie", "Proxy-Authorizatio\u0274", "", "Psu-Id"} {
		caddys := false
		switch strings.ToLower(name) {
		case "cookie", "set-cookie", "authorization", "proxy-authorization":
			caddys = true
		}
		if credential(name) != caddys {
			t.Errorf("credential(%q) = %v, Caddy: %v", name, !caddys, caddys)
		}
	}
}

// TestCompileRefusesBadPaths: a path with an empty key is refused.
func TestCompileRefusesBadPaths(t *testing.T) {
	for _, p := range []string{"", "request>", ">x", "a>>b"} {
		if _, err := compile(map[string]Filter{p: Hash{}}); err == nil {
			t.Errorf("path %q accepted", p)
		}
	}
}
