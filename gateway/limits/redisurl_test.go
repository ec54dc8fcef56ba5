package limits

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestParseRedisURLForms(t *testing.T) {
	type want struct {
		mode       string // single, sentinel, cluster
		addrs      []string
		db         int
		tls        bool
		network    string
		username   string
		password   string
		master     string
		dialTO     time.Duration
		maxRetries int
	}
	cases := []struct {
		url  string
		want want
	}{
		{"redis://127.0.0.1:6379", want{mode: "single", addrs: []string{"127.0.0.1:6379"}, network: "tcp", dialTO: time.Second, maxRetries: 1}},
		{"redis://redis.internal", want{mode: "single", addrs: []string{"redis.internal:6379"}, network: "tcp", dialTO: time.Second, maxRetries: 1}},
		{"REDIS://redis.internal/3", want{mode: "single", addrs: []string{"redis.internal:6379"}, db: 3, network: "tcp", dialTO: time.Second, maxRetries: 1}},
		{"rediss://:s3cr%40t@redis.example:6380/2", want{mode: "single", addrs: []string{"redis.example:6380"}, db: 2, tls: true, network: "tcp", password: "s3cr@t", dialTO: time.Second, maxRetries: 1}},
		{"redis://gw:pw@[::1]:7000/1?dial_timeout=250ms&max_retries=-1", want{mode: "single", addrs: []string{"[::1]:7000"}, db: 1, network: "tcp", username: "gw", password: "pw", dialTO: 250 * time.Millisecond, maxRetries: -1}},
		{"redis://[::1]", want{mode: "single", addrs: []string{"[::1]:6379"}, network: "tcp", dialTO: time.Second, maxRetries: 1}},
		{"unix://:pw@/run/redis/redis.sock?db=4", want{mode: "single", addrs: []string{"/run/redis/redis.sock"}, db: 4, network: "unix", password: "pw", dialTO: time.Second, maxRetries: 1}},
		{"redis://s1:26379,s2,[fd00::1]:26380/0?master_name=mymaster", want{mode: "sentinel", addrs: []string{"s1:26379", "s2:26379", "[fd00::1]:26380"}, master: "mymaster", dialTO: time.Second, maxRetries: 1}},
		{"rediss://sentinel-user:sp@s1:26379/5?master_name=m&password=masterpw&addr=s2:26379", want{mode: "sentinel", addrs: []string{"s1:26379", "s2:26379"}, db: 5, tls: true, master: "m", username: "sentinel-user", password: "sp", dialTO: time.Second, maxRetries: 1}},
		{"redis://n1:7000,n2:7001,n3?cluster=true", want{mode: "cluster", addrs: []string{"n1:7000", "n2:7001", "n3:6379"}, dialTO: time.Second, maxRetries: 1}},
		{"rediss://:pw@n1:7000/0?cluster=1&dial_timeout=3s", want{mode: "cluster", addrs: []string{"n1:7000"}, tls: true, password: "pw", dialTO: 3 * time.Second, maxRetries: 1}},
		{"redis://one:6379?cluster=false", want{mode: "single", addrs: []string{"one:6379"}, network: "tcp", dialTO: time.Second, maxRetries: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			tg, err := parseRedisURL(tc.url)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			var got want
			var ctxTO bool
			switch {
			case tg.single != nil:
				o := tg.single
				got = want{mode: "single", addrs: []string{o.Addr}, db: o.DB, tls: o.TLSConfig != nil, network: o.Network, username: o.Username, password: o.Password, dialTO: o.DialTimeout, maxRetries: o.MaxRetries}
				ctxTO = o.ContextTimeoutEnabled
			case tg.failover != nil:
				o := tg.failover
				got = want{mode: "sentinel", addrs: o.SentinelAddrs, db: o.DB, tls: o.TLSConfig != nil, master: o.MasterName, username: o.SentinelUsername, password: o.SentinelPassword, dialTO: o.DialTimeout, maxRetries: o.MaxRetries}
				ctxTO = o.ContextTimeoutEnabled
				if strings.Contains(tc.url, "password=masterpw") && o.Password != "masterpw" {
					t.Errorf("master password %q, want masterpw", o.Password)
				}
			case tg.cluster != nil:
				o := tg.cluster
				got = want{mode: "cluster", addrs: o.Addrs, tls: o.TLSConfig != nil, password: o.Password, dialTO: o.DialTimeout, maxRetries: o.MaxRetries}
				ctxTO = o.ContextTimeoutEnabled
			default:
				t.Fatal("no target set")
			}
			if got.mode != tc.want.mode || strings.Join(got.addrs, " ") != strings.Join(tc.want.addrs, " ") ||
				got.db != tc.want.db || got.tls != tc.want.tls || got.network != tc.want.network ||
				got.username != tc.want.username || got.password != tc.want.password || got.master != tc.want.master ||
				got.dialTO != tc.want.dialTO || got.maxRetries != tc.want.maxRetries {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			if !ctxTO {
				t.Error("context_timeout_enabled default not applied")
			}
		})
	}
}

func TestParseRedisURLRejects(t *testing.T) {
	cases := []struct{ url, wantErr string }{
		{"", "must start with"},
		{"127.0.0.1:6379", "must start with"},
		{"http://127.0.0.1:6379", "scheme must be"},
		{"redis://", "names no host"},
		{"redis://:hunter2@/0", "names no host"},
		{"redis://a:6379,b:6379", "lists 2 hosts"},
		{"redis://a:6379?addr=b:6379", "lists 2 hosts"},
		{"redis://a,b?master_name=m&cluster=true", "choose one"},
		{"redis://a:0", "port that is not 1-65535"},
		{"redis://a:65536", "port that is not 1-65535"},
		{"redis://a:+80", "port that is not 1-65535"},
		{"redis://a:", "port that is not 1-65535"},
		{"redis://::1:6379", "put it in brackets"},
		{"redis://[::1", "without ]"},
		{"redis://[::1]x", "not :port"},
		{"redis://[1.2.3.4]:6379", "not an IPv6 address"},
		{"redis://a,,b?cluster=true", "host 2 of 3 is not a host name"},
		{"redis://bad host", "is not a host name"},
		{"redis://a/x", "database number"},
		{"redis://a/1/2", "database number"},
		{"redis://a/1?cluster=true", "only database 0"},
		{"redis://a?cluster=maybe", "true or false"},
		{"redis://a?no_such_option=1", "unexpected option: no_such_option"},
		{"redis://a?dial_timeout=soon", "dial_timeout"},
		{"redis://a#frag", "#fragment"},
		{"redis://u:p%zz@a", "user name or password does not parse"},
		{"unix://host/run/redis.sock", "socket path"},
		{"unix:///run/redis.sock?cluster=true", "socket path"},
		{"redis://a?" + strings.Repeat("x", maxRedisURLLen), "longer than"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			_, err := parseRedisURL(tc.url)
			if err == nil {
				t.Fatalf("accepted; want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q, want it to contain %q", err, tc.wantErr)
			}
			if _, err2 := NewRedisClient(tc.url); err2 == nil {
				t.Error("NewRedisClient accepted what the parser rejects")
			}
		})
	}
}

// TestParseRedisURLErrorsHideSecrets feeds URLs whose passwords land in
// different places of a broken URL; no error may repeat the password.
func TestParseRedisURLErrorsHideSecrets(t *testing.T) {
	const secret = "Sup3rS3cretPw"
	for _, u := range []string{
		"redis://user:" + secret + "@a:6379?" + secret + "=1",       // unknown option named like the password
		"redis://user:" + secret + "/x@a:6379",                      // unescaped / cuts the password into the path
		"redis://user:" + secret + "#x@a:6379",                      // unescaped #
		"redis://user:" + secret + "?x@a:6379",                      // unescaped ?
		"redis://" + secret + ":" + secret + "@a:6379/" + secret,    // bad database
		"redis://user:" + secret + "%@a",                            // bad escape
		"rediss://user:" + secret + "@a,b:6379",                     // several hosts, no mode
		"redis://user:" + secret + "@a?master_name=m&max_retries=x", // go-redis option error
	} {
		_, err := parseRedisURL(u)
		if err == nil {
			t.Errorf("%q accepted", u)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "S3cret") {
			t.Errorf("error repeats the password: %v", err)
		}
	}
}

// TestNewRedisClientDoesNoIO builds clients of every mode aimed at a local
// listener and checks that nothing connects: a configuration must validate
// without Redis.
func TestNewRedisClientDoesNoIO(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()
	addr := ln.Addr().String()
	var clients []redis.UniversalClient
	start := time.Now()
	for _, u := range []string{
		"redis://" + addr + "/0?min_idle_conns=0",
		"rediss://" + addr,
		"redis://" + addr + "?master_name=m",
		"redis://" + addr + ",127.0.0.1:1?cluster=true",
		"redis://127.0.0.1:1/0", // nothing listens there
	} {
		c, err := NewRedisClient(u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		clients = append(clients, c)
	}
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("building clients took %v; it must not wait on the network", el)
	}
	select {
	case <-accepted:
		t.Fatal("building a client opened a connection")
	case <-time.After(300 * time.Millisecond):
	}
	for _, c := range clients {
		c.Close()
	}
}

func TestNewRedisClientTalksToRedis(t *testing.T) {
	c := requireRedis(t) // built by NewRedisClient from the test URL
	if err := c.Set(t.Context(), testPrefix(t, c)+"x", "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseRedisURL checks that no input panics, that accepted URLs yield
// exactly one target with usable addresses, and that errors never repeat
// the password: the password is swapped for a marker and the marker must
// not appear in the error.
func FuzzParseRedisURL(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379/0",
		"rediss://user:pw@redis.example:6380/2?dial_timeout=2s",
		"redis://s1:26379,s2:26379/0?master_name=mymaster",
		"redis://n1,n2,[::1]:7000?cluster=true",
		"unix://:pw@/run/redis.sock?db=1",
		"redis://u:p%zz@[::1",
		"redis://a?addr=b:1&master_name=x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		tg, err := parseRedisURL(raw)
		if marked, ok := withPasswordMarker(raw); ok {
			if _, err := parseRedisURL(marked); err != nil && strings.Contains(err.Error(), passwordMarker) {
				t.Fatalf("error repeats the password: %v", err)
			}
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "limits: redis URL") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		set := 0
		var addrs []string
		if tg.single != nil {
			set++
			if tg.single.Network == "tcp" {
				addrs = []string{tg.single.Addr}
			}
		}
		if tg.failover != nil {
			set++
			addrs = tg.failover.SentinelAddrs
			if tg.failover.MasterName == "" {
				t.Fatal("Sentinel target without a master name")
			}
		}
		if tg.cluster != nil {
			set++
			addrs = tg.cluster.Addrs
		}
		if set != 1 {
			t.Fatalf("%d targets set", set)
		}
		for _, a := range addrs {
			if _, port, err := net.SplitHostPort(a); err != nil || port == "" {
				t.Fatalf("address %q is not host:port", a)
			}
		}
	})
}

const passwordMarker = "Q7zX9kW2pLm4"

// withPasswordMarker replaces the password in raw's user info (the text
// between the first colon and the last @ before the path) with the marker.
func withPasswordMarker(raw string) (string, bool) {
	i := strings.Index(raw, "://")
	if i < 0 || strings.Contains(raw, passwordMarker) {
		return "", false
	}
	start := i + 3
	rest := raw[start:]
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndexByte(rest, '@')
	colon := strings.IndexByte(rest, ':')
	if at < 0 || colon < 0 || colon > at {
		return "", false
	}
	return raw[:start+colon+1] + passwordMarker + raw[start+at:], true
}

// TestGoRedisParsersLackWhatWeParse pins the reasons parseRedisURL does
// more than call go-redis's parsers (see its comment). Should a go-redis
// upgrade make one of these pass, the matching code here can go.
func TestGoRedisParsersLackWhatWeParse(t *testing.T) {
	if _, err := redis.ParseFailoverURL("redis://h1:26379,h2/0?master_name=m"); err == nil {
		t.Error("ParseFailoverURL takes a comma-separated host list now")
	}
	if o, err := redis.ParseClusterURL("redis://h1,h2"); err == nil && len(o.Addrs) > 1 {
		t.Error("ParseClusterURL splits a comma-separated host list now")
	}
	if o, err := redis.ParseFailoverURL("redis://h1/0?master_name=m"); err != nil || o.SentinelAddrs[0] != "h1:6379" {
		t.Errorf("ParseFailoverURL: %v, %v; it gave a Sentinel without a port 6379 before", o, err)
	}
	if o, err := redis.ParseURL("redis://"); err != nil || o.Addr != "localhost:6379" {
		t.Errorf("ParseURL: %v, %v; it took a URL without a host as localhost before", o, err)
	}
	if o, err := redis.ParseClusterURL("redis://h1/5"); err != nil || len(o.Addrs) != 1 {
		t.Errorf("ParseClusterURL: %v, %v; it ignored a database in the path before", o, err)
	}
	for _, u := range []string{"redis://h1:0", "redis://h1:", "redis://h1?addr=h2:0", "redis://h1?addr=%5B1.2.3.4%5D:1"} {
		if _, err := redis.ParseClusterURL(u); err != nil {
			t.Errorf("ParseClusterURL(%q) refuses it now: %v", u, err)
		}
	}
	if _, err := redis.ParseURL("redis://h1?cluster=true"); err == nil {
		t.Error("ParseURL accepts cluster= now")
	}
}
