package caddymodule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/obgw/obgw/gateway/eidas"
	"github.com/obgw/obgw/gateway/refresh"
	"github.com/obgw/obgw/gateway/trustlist"
	"github.com/obgw/obgw/pemfile"
)

// Defaults of the trusted lists' settings.
const (
	DefaultTrustedListRefresh = 24 * time.Hour
	DefaultTrustedListGrace   = 7 * 24 * time.Hour
)

// trustedListsVerifier is the certificate verifier of qtsp_trusted_list:
// the EU trusted lists decide which CAs are qualified for seals and
// website authentication (trustlist.Set kept by a refresh.Keeper);
// revocation by OCSP (ocsp on) or else the CRLs the certificates name.
func (a *App) trustedListsVerifier() (*eidas.Verifier, error) {
	if a.QTSPCAs != "" {
		return nil, fmt.Errorf("obgw: qtsp_cas %s and qtsp_trusted_list %s are two sources of QTSP CAs: give one (with the trusted lists, an empty qtsp_cas: OBGW_QTSP_CAS=)", a.QTSPCAs, a.QTSPTrustedList)
	}
	if a.CRL != "" {
		return nil, fmt.Errorf("obgw: crl %s is for the CAs of qtsp_cas; with qtsp_trusted_list revocation comes from OCSP (ocsp on) or the CRLs the certificates name: give an empty crl (OBGW_CRL=)", a.CRL)
	}
	if a.QTSPTrustedListRefresh <= 0 {
		a.QTSPTrustedListRefresh = caddy.Duration(DefaultTrustedListRefresh)
	}
	if a.QTSPTrustedListGrace <= 0 {
		a.QTSPTrustedListGrace = caddy.Duration(DefaultTrustedListGrace)
	}
	signers, notice := trustlist.PublishedSigners(), trustlist.PublishedNotice
	if a.QTSPTrustedListSigners != "" {
		notice = "" // the bank pinned its own: it knows its notice
		raw, err := os.ReadFile(a.QTSPTrustedListSigners)
		if err != nil {
			return nil, fmt.Errorf("obgw: qtsp_trusted_list_signers: %v", err)
		}
		if signers, err = pemfile.Certificates(raw); err != nil {
			return nil, fmt.Errorf("obgw: qtsp_trusted_list_signers %s: %v", a.QTSPTrustedListSigners, err)
		}
	}
	src := a.QTSPTrustedList
	set := &trustlist.Set{Signers: signers, Notice: notice, Grace: time.Duration(a.QTSPTrustedListGrace), Now: now, Log: a.slog}
	switch {
	case strings.HasPrefix(src, "https://"):
	case strings.HasPrefix(src, "http://"):
		if a.production() {
			return nil, fmt.Errorf("obgw: qtsp_trusted_list %s: production fetches the LOTL over https (or reads a directory)", src)
		}
	default:
		// An air-gapped copy: a directory of eu-lotl.xml and the lists
		// by territory.
		st, err := os.Stat(src)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("obgw: qtsp_trusted_list %s is neither an https URL of the LOTL nor a directory holding eu-lotl.xml and the national lists (<CC>.xml or TSL_<CC>.xml)", src)
		}
		set.Dir, src = src, filepath.Join(src, "eu-lotl.xml")
	}
	client, err := a.trustSourcesClient()
	if err != nil {
		return nil, err
	}
	set.Client = client
	st, poolKey, err := a.trustStoreOf()
	if err != nil {
		return nil, err
	}
	k := &refresh.Keeper{
		Name:          "qtsp trusted lists",
		URL:           src,
		Every:         time.Duration(a.QTSPTrustedListRefresh),
		Unconditional: true, // the national lists change without the LOTL
		Accept:        set.Accept,
		Use:           set.Use,
		Store:         st,
		Holder:        instance,
		Client:        client,
		Now:           now,
		Log:           a.slog,
		Failed:        func() { a.metrics.trustFetchFailed("qtsp_trusted_list") },
		Renewed:       set.Renewed,
	}
	a.trustedLists = set
	a.trustSources = append(a.trustSources, &trustSource{
		name: "qtsp_trusted_list", keeper: k, poolKey: poolKey,
		entries: func() int {
			if an := set.Anchors(); an != nil {
				return an.Len()
			}
			return -1
		},
		failsClosed: func(time.Time) bool { return set.Anchors() == nil },
		lists:       set.Lists,
		loaded: func(a *App) {
			var lists []string
			for _, l := range set.Lists() {
				lists = append(lists, fmt.Sprintf("%s %d (next update %s)", l.Territory, l.Sequence, l.NextUpdate.UTC().Format(time.DateOnly)))
			}
			a.slog.Info("trust: QTSP CAs", "source", "trusted lists "+k.URL, "services", set.Anchors().Len(), "lists", strings.Join(lists, ", "),
				"fetched", k.Fetched().UTC().Format(time.RFC3339))
		},
	})
	v := &eidas.Verifier{TrustedLists: set.Anchors}
	v.Revocation = &eidas.CRLFetcher{}
	if a.OCSP {
		v.Revocation = &eidas.OCSPChecker{Override: a.OCSPOverride, Fallback: &eidas.CRLFetcher{}, MaxCacheTTL: time.Duration(a.CertCacheTTL)}
	}
	return v, nil
}
