package limits

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxRedisURLLen bounds the configuration value the parser will look at.
const maxRedisURLLen = 4096

// Defaults NewRedisClient applies when the URL does not set the option:
// a limiter or replay check sits on the request path, so an unreachable
// Redis must fail within about a second (the caller then applies on_error)
// rather than go-redis's multi-second defaults.
const (
	defaultDialTimeout   = time.Second
	defaultReadTimeout   = time.Second
	defaultWriteTimeout  = time.Second
	defaultMaxRetries    = 1
	defaultDialerRetries = 2
)

// NewRedisClient builds a Redis client from a URL such as OBGW_REDIS_URL.
// It does no network I/O: connections are made on first use, so a
// configuration can be validated without Redis. The forms are:
//
//	redis://[[user]:password@]host[:port][/db][?option=value&...]   one server
//	rediss://...                                                    one server over TLS
//	unix://[[user]:password@]/path/to/redis.sock[?db=N&...]          one server over a Unix socket
//	redis[s]://[[user]:password@]host[:port][,host2[:port]...][/db]?master_name=NAME[&...]
//	                                     Sentinel: the hosts are Sentinels (default port 26379)
//	redis[s]://[[user]:password@]host[:port][,host2[:port]...]?cluster=true[&...]
//	                                     Redis Cluster: the hosts are seed nodes
//
// Several hosts need master_name or cluster=true. IPv6 addresses go in
// brackets. Hosts may also be given as addr=host:port parameters, as in
// go-redis. Percent-encode @ : / ? # % in the user name and password.
// For Sentinel, the user info authenticates to the Sentinels and the
// master's credentials go in the username= and password= parameters (as in
// go-redis's ParseFailoverURL).
//
// Other parameters are go-redis's option names in snake case (dial_timeout,
// read_timeout, pool_size, skip_verify, ...); unknown names are an error.
// Unless set, dial_timeout, read_timeout and write_timeout are 1s,
// max_retries 1, dialer_retries 2 and context_timeout_enabled true, so that
// a request waiting on a dead Redis fails in about a second.
//
// Errors never repeat the URL, which may hold a password.
func NewRedisClient(rawURL string) (redis.UniversalClient, error) {
	t, err := parseRedisURL(rawURL)
	if err != nil {
		return nil, err
	}
	switch {
	case t.failover != nil:
		return redis.NewFailoverClient(t.failover), nil
	case t.cluster != nil:
		return redis.NewClusterClient(t.cluster), nil
	default:
		return redis.NewClient(t.single), nil
	}
}

// redisTarget is what a Redis URL selects: exactly one field is set.
type redisTarget struct {
	single   *redis.Options
	failover *redis.FailoverOptions
	cluster  *redis.ClusterOptions
}

// errRedisURL builds a parse error; detail must not contain URL text.
func errRedisURL(detail string) error {
	return errors.New("limits: redis URL " + detail)
}

// parseRedisURL hands the URL to go-redis's parser for its mode
// (redis.ParseURL, ParseFailoverURL or ParseClusterURL), which reads the
// credentials, TLS, database and every option. What those parsers cannot
// express is all this file parses itself:
//   - a comma-separated host list: they take one host in the URL (net/url
//     allows no more) and the others as addr= parameters, so the list is
//     rewritten into that form;
//   - the mode: there is a parser per mode and no parameter that picks one;
//     master_name= picks Sentinel, cluster=true Cluster, and several hosts
//     with neither are refused rather than silently cut to the first;
//   - our defaults: a Sentinel without a port is on 26379 (go-redis: 6379),
//     a URL names a host (go-redis: localhost), Cluster has database 0 only
//     (ParseClusterURL ignores the path);
//   - what they leave to the first dial: ports 1-65535, IPv6 in brackets,
//     host names (they accept "redis://a:0", "redis://a:" as a:6379, and
//     addr=[1.2.3.4]:1);
//   - errors that never repeat the password: net/url's and go-redis's
//     messages quote the text they stumble on.
func parseRedisURL(raw string) (redisTarget, error) {
	if len(raw) > maxRedisURLLen {
		return redisTarget{}, errRedisURL("is longer than 4096 bytes")
	}
	schemeEnd := strings.Index(raw, "://")
	if schemeEnd < 0 {
		return redisTarget{}, errRedisURL("must start with redis://, rediss:// or unix://")
	}
	scheme := strings.ToLower(raw[:schemeEnd])
	switch scheme {
	case "redis", "rediss", "unix":
	default:
		return redisTarget{}, errRedisURL("scheme must be redis, rediss (TLS) or unix")
	}
	rest := raw[schemeEnd+3:]
	authEnd := strings.IndexAny(rest, "/?#")
	if authEnd < 0 {
		authEnd = len(rest)
	}
	authority, tail := rest[:authEnd], rest[authEnd:]

	var user *url.Userinfo
	hostList := authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		hostList = authority[at+1:]
		u, err := url.Parse("redis://" + authority[:at] + "@localhost")
		if err != nil || u.User == nil {
			return redisTarget{}, errRedisURL("user name or password does not parse; percent-encode @ : / ? # % in them")
		}
		user = u.User
	}
	return parseRedisURLParts(scheme, user, hostList, tail)
}

// errFromGoRedis passes on go-redis's message (it names the bad option),
// with the password cut out should a malformed URL have put it there.
func errFromGoRedis(err error, user *url.Userinfo) error {
	msg := err.Error()
	if pw, _ := user.Password(); pw != "" {
		msg = strings.ReplaceAll(msg, pw, "REDACTED")
	}
	return errors.New("limits: redis URL: " + msg)
}

func parseRedisURLParts(scheme string, user *url.Userinfo, hostList, tail string) (redisTarget, error) {
	if strings.ContainsRune(tail, '#') {
		return redisTarget{}, errRedisURL("has a #fragment; percent-encode # in a password as %23")
	}
	pu, err := url.Parse("redis://localhost" + tail)
	if err != nil {
		return redisTarget{}, errRedisURL("path or query does not parse; percent-encode special characters")
	}
	q := pu.Query()

	cluster := false
	if q.Has("cluster") {
		if cluster, err = strconv.ParseBool(q.Get("cluster")); err != nil {
			return redisTarget{}, errRedisURL("parameter cluster must be true or false")
		}
		q.Del("cluster")
	}
	masterName := q.Get("master_name")

	if scheme == "unix" {
		if hostList != "" || cluster || masterName != "" || q.Has("addr") {
			return redisTarget{}, errRedisURL("unix:// takes only a socket path, as in unix:///run/redis.sock?db=0")
		}
		o, err := redis.ParseURL((&url.URL{Scheme: scheme, User: user, Path: pu.Path, RawQuery: q.Encode()}).String())
		if err != nil {
			return redisTarget{}, errFromGoRedis(err, user)
		}
		applySingleDefaults(o, q)
		return redisTarget{single: o}, nil
	}

	if hostList == "" {
		return redisTarget{}, errRedisURL("names no host, as in redis://redis.example:6379/0")
	}
	hosts := strings.Split(hostList, ",")
	hosts = append(hosts, q["addr"]...)
	q.Del("addr")
	defaultPort := "6379"
	switch {
	case masterName != "" && cluster:
		return redisTarget{}, errRedisURL("sets both master_name (Sentinel) and cluster=true; choose one")
	case masterName != "":
		defaultPort = "26379"
	case !cluster && len(hosts) > 1:
		return redisTarget{}, errRedisURL("lists " + strconv.Itoa(len(hosts)) + " hosts; add master_name=NAME for Sentinel or cluster=true for Redis Cluster")
	}
	addrs := make([]string, len(hosts))
	for i, h := range hosts {
		if addrs[i], err = normalizeRedisAddr(h, defaultPort); err != nil {
			return redisTarget{}, errRedisURL("host " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(hosts)) + " " + err.Error())
		}
	}
	db, err := redisDB(pu.Path)
	if err != nil {
		return redisTarget{}, err
	}
	if cluster && db > 0 {
		return redisTarget{}, errRedisURL("selects a database, but Redis Cluster has only database 0")
	}
	for _, a := range addrs[1:] {
		q.Add("addr", a)
	}
	gu := url.URL{Scheme: scheme, User: user, Host: addrs[0], RawQuery: q.Encode()}
	if db > 0 {
		gu.Path = "/" + strconv.Itoa(db)
	}
	switch {
	case masterName != "":
		o, err := redis.ParseFailoverURL(gu.String())
		if err != nil {
			return redisTarget{}, errFromGoRedis(err, user)
		}
		applyFailoverDefaults(o, q)
		return redisTarget{failover: o}, nil
	case cluster:
		o, err := redis.ParseClusterURL(gu.String())
		if err != nil {
			return redisTarget{}, errFromGoRedis(err, user)
		}
		applyClusterDefaults(o, q)
		return redisTarget{cluster: o}, nil
	default:
		o, err := redis.ParseURL(gu.String())
		if err != nil {
			return redisTarget{}, errFromGoRedis(err, user)
		}
		applySingleDefaults(o, q)
		return redisTarget{single: o}, nil
	}
}

// normalizeRedisAddr checks one host[:port] and returns it as host:port.
// Its errors do not repeat the text, which may be a misplaced password.
func normalizeRedisAddr(h, defaultPort string) (string, error) {
	host, port := h, defaultPort
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return "", errors.New("has [ without ]")
		}
		host = h[1:end]
		if rest := h[end+1:]; rest != "" {
			if rest[0] != ':' {
				return "", errors.New("has text after ] that is not :port")
			}
			port = rest[1:]
		}
		if ip := net.ParseIP(host); ip == nil || ip.To4() != nil {
			return "", errors.New("is not an IPv6 address inside [ ]")
		}
	} else {
		if i := strings.LastIndexByte(h, ':'); i >= 0 {
			host, port = h[:i], h[i+1:]
		}
		if strings.IndexByte(host, ':') >= 0 {
			return "", errors.New("looks like IPv6; put it in brackets, as in [::1]:6379")
		}
		if !validRedisHostName(host) {
			return "", errors.New("is not a host name or IP address")
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || len(port) > 5 || port[0] == '+' || port[0] == '-' {
		return "", errors.New("has a port that is not 1-65535")
	}
	return net.JoinHostPort(host, port), nil
}

// validRedisHostName accepts DNS names and IPv4 addresses.
func validRedisHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// redisDB reads the database number from the path: "", "/" or "/N".
func redisDB(path string) (int, error) {
	p := strings.TrimPrefix(path, "/")
	if p == "" {
		return 0, nil
	}
	if len(p) > 5 || strings.Trim(p, "0123456789") != "" {
		return 0, errRedisURL("path must be a database number, as in /0")
	}
	db, _ := strconv.Atoi(p)
	return db, nil
}

func applySingleDefaults(o *redis.Options, q url.Values) {
	applyDefaults(q, &o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.MaxRetries, &o.DialerRetries, &o.ContextTimeoutEnabled)
}

func applyFailoverDefaults(o *redis.FailoverOptions, q url.Values) {
	applyDefaults(q, &o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.MaxRetries, &o.DialerRetries, &o.ContextTimeoutEnabled)
}

func applyClusterDefaults(o *redis.ClusterOptions, q url.Values) {
	applyDefaults(q, &o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.MaxRetries, &o.DialerRetries, &o.ContextTimeoutEnabled)
}

// applyDefaults sets the request-path defaults that q, the URL's
// parameters, does not override.
func applyDefaults(q url.Values, dial, read, write *time.Duration, maxRetries, dialerRetries *int, ctxTimeout *bool) {
	if !q.Has("dial_timeout") {
		*dial = defaultDialTimeout
	}
	if !q.Has("read_timeout") {
		*read = defaultReadTimeout
	}
	if !q.Has("write_timeout") {
		*write = defaultWriteTimeout
	}
	if !q.Has("max_retries") {
		*maxRetries = defaultMaxRetries
	}
	if !q.Has("dialer_retries") {
		*dialerRetries = defaultDialerRetries
	}
	if !q.Has("context_timeout_enabled") {
		*ctxTimeout = true
	}
}
