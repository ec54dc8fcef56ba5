package trustlist

import (
	"crypto/x509"
	_ "embed"

	"github.com/obgw/obgw/pemfile"
)

// ojSigners are the certificates that may sign the EU List of Trusted
// Lists, as the European Commission published them in the Official
// Journal (OJ C/2026/1944, CELEX 52026XC01944): the six the LOTL's
// pointer to itself names (seq 386), whose SHA-256 digests match those
// the notice publishes (docs/research/central-registries.md, 1.3).
//
//go:embed signers/ojc-2026-1944.pem
var ojSigners []byte

// PublishedNotice is the Official Journal notice of the signers
// PublishedSigners returns, as the LOTL names it first among its
// SchemeInformationURIs.
const PublishedNotice = "https://eur-lex.europa.eu/eli/C/2026/1944/oj"

// PublishedSigners are the LOTL signers of the latest Official Journal
// notice obgw knows (OJ C/2026/1944). A newer notice is configured with
// qtsp_trusted_list_signers until obgw ships it.
func PublishedSigners() []*x509.Certificate {
	cs, err := pemfile.Certificates(ojSigners)
	if err != nil {
		panic("trustlist: the embedded LOTL signers do not parse: " + err.Error())
	}
	return cs
}
