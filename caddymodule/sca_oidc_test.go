package caddymodule

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"
)

func TestUnmarshalSCAOIDC(t *testing.T) {
	d := caddyfile.NewTestDispenser(`obgw_backend {
		environment production
		sca_oidc {
			issuer https://idp.bank.example
			client_id obgw
			client_secret {env.OBGW_TEST_SECRET}
			customer_claim nnin
			scopes "profile nnin"
			acr_values urn:acr:substantial
			payment_acr_values urn:acr:high urn:acr:higher
			app_param login_hint BankID-app
			app_param ui_locales nb
			redirect_url https://api.bank.example/api-sandbox/v1/sca/callback
			clock_skew 30s
			private_key_id
		}
		database x.db
	}`)
	b := new(Backend)
	if err := b.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	want := &SCAOIDC{
		Issuer: "https://idp.bank.example", ClientID: "obgw", ClientSecret: "{env.OBGW_TEST_SECRET}", CustomerClaim: "nnin",
		Scopes: []string{"profile", "nnin"}, ACRValues: []string{"urn:acr:substantial"},
		PaymentACRValues: []string{"urn:acr:high", "urn:acr:higher"},
		AppParams:        map[string][]string{"login_hint": {"BankID-app"}, "ui_locales": {"nb"}},
		RedirectURL:      "https://api.bank.example/api-sandbox/v1/sca/callback", ClockSkew: caddy.Duration(30 * time.Second),
	}
	if !reflect.DeepEqual(b.SCAOIDC, want) {
		t.Fatalf("sca_oidc %+v\nwant %+v", b.SCAOIDC, want)
	}
	if b.Database != "x.db" || b.Environment != "production" {
		t.Fatalf("the options after the block: %+v", b)
	}
	t.Setenv("OBGW_TEST_SECRET", "s3cret")
	rp, redirect, err := b.SCAOIDC.relyingParty(zap.NewNop())
	if err != nil || rp == nil || redirect != want.RedirectURL {
		t.Fatalf("relying party: %v %v %q", rp, err, redirect)
	}

	for _, bad := range []string{
		"sca_oidc {\nclock_skew soon\n}",
		"sca_oidc {\napp_param login_hint\n}",
		"sca_oidc {\nissuer a b\n}",
		"sca_oidc {\nnonsense x\n}",
		"sca_oidc extra {\n}",
	} {
		d := caddyfile.NewTestDispenser("obgw_backend {\n" + bad + "\n}")
		if err := new(Backend).UnmarshalCaddyfile(d); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestSCAOIDCSettingErrors: each wrong or missing setting is named.
func TestSCAOIDCSettingErrors(t *testing.T) {
	key := filepath.Join(t.TempDir(), "key.pem")
	os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600)
	ok := SCAOIDC{Issuer: "https://idp.example", ClientID: "obgw", ClientSecret: "s"}
	for _, c := range []struct {
		name string
		edit func(o *SCAOIDC)
		want string
	}{
		{"no client id", func(o *SCAOIDC) { o.ClientID = "" }, "client_id is required"},
		{"no way to authenticate", func(o *SCAOIDC) { o.ClientSecret = "" }, "client_secret or private_key"},
		{"http issuer", func(o *SCAOIDC) { o.Issuer = "http://idp.example" }, "must be https"},
		{"relative issuer", func(o *SCAOIDC) { o.Issuer = "idp.example" }, "not an absolute URL"},
		{"redirect not the callback", func(o *SCAOIDC) { o.RedirectURL = "https://api.example/cb" }, "redirect_url"},
		{"http redirect", func(o *SCAOIDC) { o.RedirectURL = "http://api.example/v1/sca/callback" }, "redirect_url"},
		{"secret and key", func(o *SCAOIDC) { o.PrivateKeyFile = key }, "both set"},
		{"bad key", func(o *SCAOIDC) { o.ClientSecret, o.PrivateKeyFile = "", key }, "private_key_file"},
		{"missing key", func(o *SCAOIDC) { o.ClientSecret, o.PrivateKeyFile = "", key+".gone" }, "private_key_file"},
		{"skew", func(o *SCAOIDC) { o.ClockSkew = caddy.Duration(time.Hour) }, "clock_skew"},
		{"acr with a space", func(o *SCAOIDC) { o.ACRValues = []string{"a b"} }, "acr value"},
	} {
		o := ok
		c.edit(&o)
		_, _, err := o.relyingParty(zap.NewNop())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
	// No issuer: no provider, and no error (production refuses that in
	// Provision, naming the setting).
	if rp, _, err := (&SCAOIDC{ClientID: "x"}).relyingParty(zap.NewNop()); rp != nil || err != nil {
		t.Fatalf("no issuer: %v %v", rp, err)
	}
	if rp, _, err := (*SCAOIDC)(nil).relyingParty(zap.NewNop()); rp != nil || err != nil {
		t.Fatalf("no block: %v %v", rp, err)
	}
}
