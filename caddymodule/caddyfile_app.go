package caddymodule

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("obgw", parseGlobalOption)
}

// parseGlobalOption sets up the obgw app from the global options block:
//
//	obgw {
//	    qtsp_cas              <pem file>
//	    qtsp_trusted_list     <LOTL https URL | directory>
//	    qtsp_trusted_list_signers <PEM of the LOTL's signers>
//	    qtsp_trusted_list_refresh <duration, default 24h>
//	    qtsp_trusted_list_grace   <duration, default 168h>
//	    crl                   <pem file>
//	    registry              <json file | https url>
//	    registry eba          <https url | file>
//	    registry_eba          <https url | file>
//	    registry_country      <ISO 3166 code, default NO>
//	    registry_refresh      <duration, default 24h>
//	    registry_max_age      <duration, default 168h>
//	    trust_store           <postgres:// URL | SQLite file>
//	    trust_sources_ca      <PEM file of CAs for fetching them>
//	    registry_ttl          <duration>
//	    registry_negative_ttl <duration>
//	    registry_max_stale    <duration>
//	    cert_cache_size       <n>
//	    cert_cache_ttl        <duration>
//	    clock_skew            <duration>
//	    context_key           <base64 secret, or {env.NAME}>
//	    context_key_file      <file holding the key>
//	    context_signing_key_file    <PEM Ed25519 or P-256 private key>
//	    context_published_key_files <PEM key>...
//	    context_audience            <the upstream's name>
//	    environment           production|sandbox
//	    diagnostics           on|off (empty: on in a sandbox only)
//	    bank_seal_cert        <PEM QSealC the responses are signed with>
//	    bank_seal_key         <its PEM private key: RSA, or ECDSA P-256>
//	    body_memory           <bytes, e.g. 64MiB>
//	    body_share            <bytes one TPP holds, e.g. 4MiB>
//	    redis_url             <redis:// URL>
//	    ocsp                  on|off
//	    ocsp_override         <url>
//	}
func parseGlobalOption(d *caddyfile.Dispenser, _ any) (any, error) {
	a := new(App)
	if err := a.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "obgw", Value: caddyconfig.JSON(a, nil)}, nil
}

// UnmarshalCaddyfile sets up the app from Caddyfile tokens.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		name := d.Val()
		args := d.RemainingArgs()
		if name == "context_published_key_files" {
			// Any number, as arguments or one space-separated value.
			for _, a2 := range args {
				a.ContextPublishedKeyFiles = append(a.ContextPublishedKeyFiles, strings.Fields(a2)...)
			}
			continue
		}
		if name == "registry" && len(args) == 2 {
			if args[0] != "eba" {
				return d.Errf("registry takes a file or URL, or eba and the EBA register's URL or file; not %q", args[0])
			}
			a.RegistryEBA = args[1]
			continue
		}
		if len(args) > 1 {
			return d.ArgErr()
		}
		var arg string
		if len(args) == 1 {
			arg = args[0]
		} else if name != "context_key" && name != "context_key_file" && name != "redis_url" && name != "ocsp_override" && name != "environment" && name != "crl" && name != "diagnostics" &&
			name != "context_signing_key_file" && name != "context_audience" && name != "bank_seal_cert" && name != "bank_seal_key" &&
			name != "registry" && name != "registry_eba" && name != "trust_store" && name != "trust_sources_ca" &&
			name != "qtsp_cas" && name != "qtsp_trusted_list" && name != "qtsp_trusted_list_signers" {
			// Only these may be empty (an environment placeholder set
			// empty): the process then makes its own key, keeps its state
			// in memory, is a production deployment, or reads no CRL file
			// (OCSP or the certificates' own CRLs may be the bank's choice);
			// diagnostics are then on in a sandbox only; a register is
			// the EBA's alone, or a file or URL alone; the trust store is
			// the default file.
			return d.ArgErr()
		}
		var err error
		switch name {
		case "qtsp_cas":
			a.QTSPCAs = arg
		case "qtsp_trusted_list":
			a.QTSPTrustedList = arg
		case "qtsp_trusted_list_signers":
			a.QTSPTrustedListSigners = arg
		case "qtsp_trusted_list_refresh":
			a.QTSPTrustedListRefresh, err = parseDuration(arg)
		case "qtsp_trusted_list_grace":
			a.QTSPTrustedListGrace, err = parseDuration(arg)
		case "crl":
			a.CRL = arg
		case "registry":
			a.Registry = arg
		case "registry_eba":
			a.RegistryEBA = arg
		case "registry_country":
			a.RegistryCountry = arg
		case "registry_refresh":
			a.RegistryRefresh, err = parseDuration(arg)
		case "registry_max_age":
			a.RegistryMaxAge, err = parseDuration(arg)
		case "trust_store":
			a.TrustStore = arg
		case "trust_sources_ca":
			a.TrustSourcesCA = arg
		case "registry_ttl":
			a.RegistryTTL, err = parseDuration(arg)
		case "registry_negative_ttl":
			a.RegistryNegativeTTL, err = parseDuration(arg)
		case "registry_max_stale":
			a.RegistryMaxStale, err = parseDuration(arg)
		case "cert_cache_size":
			if a.CertCacheSize, err = strconv.Atoi(arg); err != nil || a.CertCacheSize < 1 {
				err = fmt.Errorf("%q is not a whole number of 1 or more", arg)
			}
		case "cert_cache_ttl":
			a.CertCacheTTL, err = parseDuration(arg)
		case "clock_skew":
			a.ClockSkew, err = parseDuration(arg)
		case "context_key":
			a.ContextKey = arg
		case "context_key_file":
			a.ContextKeyFile = arg
		case "context_signing_key_file":
			a.ContextSigningKeyFile = arg
		case "context_audience":
			a.ContextAudience = arg
		case "body_memory":
			a.BodyMemory, err = parseSize(arg)
		case "body_share":
			a.BodyShare, err = parseSize(arg)
		case "environment":
			a.Environment = arg
		case "bank_seal_cert":
			a.BankSealCert = arg
		case "bank_seal_key":
			a.BankSealKey = arg
		case "redis_url":
			a.RedisURL = arg
		case "ocsp":
			switch arg {
			case "on":
				a.OCSP = true
			case "off":
				a.OCSP = false
			default:
				return d.Errf("ocsp must be on or off, not %q", arg)
			}
		case "diagnostics":
			switch arg {
			case "on":
				a.Diagnostics = new(bool)
				*a.Diagnostics = true
			case "off":
				a.Diagnostics = new(bool)
			case "":
				a.Diagnostics = nil
			default:
				return d.Errf("diagnostics must be on or off (or empty: on in a sandbox only), not %q", arg)
			}
		case "ocsp_override":
			a.OCSPOverride = arg
		default:
			return d.Errf("unknown obgw option %q", name)
		}
		if err != nil {
			return d.Errf("obgw %s: %v", name, err)
		}
	}
	return nil
}

// parseDuration reads a duration option's value; its error names the
// value and the form wanted (the caller names the option).
func parseDuration(s string) (caddy.Duration, error) {
	d, err := caddy.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write it as 30s, 10m or 1h", s)
	}
	return caddy.Duration(d), nil
}

// parseSize reads a size option's value, as humanize does; its error
// names the value and the form wanted.
func parseSize(s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil || n > 1<<50 {
		return 0, fmt.Errorf("%q is not a size: write it as 64KiB, 16MiB or 1GB", s)
	}
	return int64(n), nil
}
