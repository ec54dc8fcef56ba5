package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/obgw/obgw/gateway/limits"
)

// TestHygieneRefusesBadBytesInThePath: NUL, control characters and invalid
// UTF-8 in the decoded path are 400 FORMAT_ERROR on (request-target), so
// they never reach the context token (whose JSON would turn %FF into
// U+FFFD), the limiter or the database.
func TestHygieneRefusesBadBytesInThePath(t *testing.T) {
	f := newFixture(t)
	for _, target := range []string{
		"/v1/accounts/%FF/balances",
		"/v1/bank-offered-consents/%00",
		"/v1/sca/%00",
		"/v1/payments/sepa-credit-transfers/a%0Ab",
		"/v1/accounts/%C2%85",
	} {
		r := f.sign(t, "tpp", "GET", target, nil, nil)
		o := f.v.Verify(context.Background(), r, &Policy{})
		if o.Err == nil || o.Err.Status != 400 || o.Err.Code != "FORMAT_ERROR" || o.Err.Path != "(request-target)" || o.Decision(CheckHygiene) != DecisionFail {
			t.Errorf("GET %s: %+v, hygiene %s; want 400 FORMAT_ERROR on (request-target)", target, o.Err, o.Decision(CheckHygiene))
		}
		if o.Token != "" {
			t.Errorf("GET %s: a context token was issued", target)
		}
	}
	// A well-formed id, even unknown, passes.
	r := f.sign(t, "tpp", "GET", "/v1/accounts/enc!!nope-_x/balances", nil, nil)
	if o := f.v.Verify(context.Background(), r, &Policy{}); o.Err != nil {
		t.Fatalf("well-formed id: %+v", o.Err)
	}
}

// TestHygieneBoundsSessionAndRedirect: a 10 KB TPP-Session-ID and a 2 KB
// TPP-Redirect-URI are refused with 400 FORMAT_ERROR naming the header and
// the bound, before anything else is looked at.
func TestHygieneBoundsSessionAndRedirect(t *testing.T) {
	f := newFixture(t)
	const base = "https://tpp.example.no/cb?state="
	for _, tc := range []struct{ header, value, bound string }{
		{"TPP-Session-ID", strings.Repeat("s", 10<<10), "128"},
		{"TPP-Redirect-URI", base + strings.Repeat("a", 2048-len(base)), "1024"},
	} {
		r := f.sign(t, "tpp", "POST", "/v1/bank-offered-consents", nil, map[string]string{tc.header: tc.value})
		o := f.v.Verify(context.Background(), r, &Policy{})
		if o.Err == nil || o.Err.Status != 400 || o.Err.Code != "FORMAT_ERROR" || o.Err.Path != tc.header || !strings.Contains(o.Err.Text, "more than the "+tc.bound+" allowed") {
			t.Errorf("%d-byte %s: %+v, want 400 FORMAT_ERROR naming it and %s", len(tc.value), tc.header, o.Err, tc.bound)
		}
	}
}

// limitCases are limited calls whose key parts the limiter must refuse.
// Hygiene runs report-only so that a non-UUID PSU-ID reaches the limit
// check, as it would under a lenient policy.
func limitCases() []struct {
	name, account, psuID, wantPath string
} {
	return []struct {
		name, account, psuID, wantPath string
	}{
		{"4 KB account id", strings.Repeat("a", 4<<10), randomUUID(), "(request-target)"},
		{"account id with a space", "a%20b", randomUUID(), "(request-target)"},
		{"account id with non-ASCII", "konto-%C3%B8", randomUUID(), "(request-target)"},
		{"PSU-ID not a UUID", "enc!!AbCdEf-_0123456789xyz", "kari-nordmann", "PSU-ID"},
		{"PSU-ID of 4 KB", "enc!!AbCdEf-_0123456789xyz", strings.Repeat("f", 4<<10), "PSU-ID"},
	}
}

// limitedCall signs a PSU-not-present balances call for account and
// verifies it with limiter l.
func limitedCall(t *testing.T, f *fixture, l limits.Limiter, account, psuID string) *Outcome {
	t.Helper()
	f.v.cfg.Limiter = l
	r := f.sign(t, "tpp", "GET", "/v1/accounts/"+account+"/balances", nil, map[string]string{"PSU-ID": psuID})
	r.LimitResource = strings.Split(r.HTTP.URL.Path, "/")[3] // {http.request.uri.path.2}
	p := &Policy{LimitKind: limits.KindBalances}
	p.Modes[CheckHygiene] = ModeReportOnly
	return f.v.Verify(context.Background(), r, p)
}

func TestLimitRefusesBadKeyPartsBeforeCountingInMemory(t *testing.T) {
	f := newFixture(t)
	mem := limits.NewMemory(limits.Config{})
	for _, tc := range limitCases() {
		o := limitedCall(t, f, mem, tc.account, tc.psuID)
		if o.Err == nil || o.Err.Status != 400 || o.Err.Code != "FORMAT_ERROR" || o.Err.Path != tc.wantPath || o.Decision(CheckLimit) != DecisionFail {
			t.Errorf("%s: %+v, limit %s; want 400 FORMAT_ERROR on %s", tc.name, o.Err, o.Decision(CheckLimit), tc.wantPath)
		}
		if n := mem.Len(); n != 0 {
			t.Fatalf("%s: the limiter holds %d keys, want none", tc.name, n)
		}
	}
	// A conforming call is counted: the test sees keys when there are some.
	if o := limitedCall(t, f, mem, "enc!!AbCdEf-_0123456789xyz", randomUUID()); o.Err != nil || o.Decision(CheckLimit) != DecisionPass || mem.Len() != 1 {
		t.Fatalf("conforming call: %+v, limit %s, %d keys", o.Err, o.Decision(CheckLimit), mem.Len())
	}
}

func TestLimitRefusesBadKeyPartsBeforeCountingInRedis(t *testing.T) {
	if os.Getenv("OBGW_SKIP_REDIS") == "1" {
		t.Skip("OBGW_SKIP_REDIS=1")
	}
	url := os.Getenv("OBGW_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	client, err := limits.NewRedisClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() }) // after the keys' cleanup below
	ctx := context.Background()
	pingCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pingCtx).Err(); err != nil {
		t.Fatalf("Redis at %s: %v (OBGW_SKIP_REDIS=1 skips)", url, err)
	}
	var b [8]byte
	rand.Read(b[:])
	prefix := "obgw-test:gateway-keyparts:" + hex.EncodeToString(b[:]) + ":"
	keys := func() []string {
		ks, err := client.Keys(ctx, prefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return ks
	}
	t.Cleanup(func() {
		if ks := keys(); len(ks) > 0 {
			client.Del(ctx, ks...)
		}
	})
	f := newFixture(t)
	l := limits.NewRedis(client, limits.Config{}, prefix)
	for _, tc := range limitCases() {
		o := limitedCall(t, f, l, tc.account, tc.psuID)
		if o.Err == nil || o.Err.Status != 400 || o.Err.Code != "FORMAT_ERROR" || o.Err.Path != tc.wantPath {
			t.Errorf("%s: %+v; want 400 FORMAT_ERROR on %s", tc.name, o.Err, tc.wantPath)
		}
		if ks := keys(); len(ks) != 0 {
			t.Fatalf("%s: Redis holds %d keys under the test prefix, want none", tc.name, len(ks))
		}
	}
	if o := limitedCall(t, f, l, "enc!!AbCdEf-_0123456789xyz", randomUUID()); o.Err != nil || len(keys()) != 1 {
		t.Fatalf("conforming call: %+v, %d keys", o.Err, len(keys()))
	}
}
