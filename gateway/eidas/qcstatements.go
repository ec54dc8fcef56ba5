package eidas

import (
	"encoding/asn1"
	"errors"
	"unicode/utf8"
)

// PSD2 roles of a payment service provider (ETSI TS 119 495 section 5.1).
const (
	RoleAccountServicing      = "PSP_AS" // account servicing (a bank)
	RolePaymentInitiation     = "PSP_PI" // payment initiation (PISP)
	RoleAccountInformation    = "PSP_AI" // account information (AISP)
	RoleIssuingCardInstrument = "PSP_IC" // issuing of card-based payment instruments
)

// Object identifiers of the statements this package reads (RFC 3739,
// EN 319 412-5, TS 119 495). Unexported so that nobody can change them.
var (
	oidQCStatements   = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}
	oidQcCompliance   = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 1}
	oidQcType         = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6}
	oidQcTypeESign    = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 1}
	oidQcTypeESeal    = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 2}
	oidQcTypeWeb      = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 3}
	oidPSD2Statement  = asn1.ObjectIdentifier{0, 4, 0, 19495, 2}
	oidPSD2RolePrefix = asn1.ObjectIdentifier{0, 4, 0, 19495, 1}
)

// psd2RoleNames maps the last arc of a role OID under 0.4.0.19495.1 to the
// role name TS 119 495 requires next to it (GEN-5.2.2-5).
var psd2RoleNames = [...]string{1: RoleAccountServicing, 2: RolePaymentInitiation, 3: RoleAccountInformation, 4: RoleIssuingCardInstrument}

// maxStatementString is the SIZE upper bound of RoleOfPspName, NCAName and
// NCAId in TS 119 495.
const maxStatementString = 256

// QCStatements is what this package reads from a certificate's
// qcStatements extension (OID 1.3.6.1.5.5.7.1.3). Statements it does not
// know (QcSSCD, QcPDS, QcCClegislation, ...) are skipped.
type QCStatements struct {
	// Compliance is set by id-etsi-qcs-QcCompliance: the certificate is an
	// EU qualified certificate.
	Compliance bool
	// ESign, ESeal and Web are the types listed in id-etsi-qcs-QcType:
	// certificate for electronic signatures, seals (QSealC), or website
	// authentication (QWAC).
	ESign, ESeal, Web bool
	// PSD2 is the id-etsi-psd2-qcStatement, nil if absent.
	PSD2 *PSD2Statement
}

// PSD2Statement is the PSD2QcType of ETSI TS 119 495.
type PSD2Statement struct {
	// Roles lists the known roles (RoleAccountServicing, ...) in
	// certificate order without duplicates. Role OIDs this package does not
	// know, such as "Unspecified", are left out.
	Roles []string
	// NCAName is the competent authority's name, e.g. "The Financial
	// Supervisory Authority of Norway".
	NCAName string
	// NCAID is the competent authority's identifier, e.g. "NO-FSA".
	NCAID string
}

// HasRole reports whether role is among s.Roles.
func (s *PSD2Statement) HasRole(role string) bool {
	for _, r := range s.Roles {
		if r == role {
			return true
		}
	}
	return false
}

type qcStatement struct {
	ID   asn1.ObjectIdentifier
	Info asn1.RawValue `asn1:"optional"`
}

type psd2QcType struct {
	Roles   []psd2Role
	NCAName string `asn1:"utf8"`
	NCAID   string `asn1:"utf8"`
}

type psd2Role struct {
	OID  asn1.ObjectIdentifier
	Name string `asn1:"utf8"`
}

// ParseQCStatements parses the DER value of a qcStatements extension. It
// fails on malformed DER, trailing data, a statement that occurs twice, a
// malformed QcType or PSD2 statement, a PSD2 role whose name does not match
// its OID, and empty or over-long PSD2 strings. Fields after nCAId are
// ignored, so that a later TS 119 495 version may append some.
func ParseQCStatements(ext []byte) (*QCStatements, error) {
	var raw []qcStatement
	rest, err := asn1.Unmarshal(ext, &raw)
	if err != nil {
		return nil, malformed("QCStatements is not a DER SEQUENCE OF QCStatement", err)
	}
	if len(rest) != 0 {
		return nil, malformed("QCStatements has trailing data after the SEQUENCE", nil)
	}
	q := &QCStatements{}
	var seenType bool
	for i := range raw {
		st := &raw[i]
		switch {
		case st.ID.Equal(oidQcCompliance):
			if q.Compliance {
				return nil, malformed("QCStatements lists QcCompliance twice", nil)
			}
			q.Compliance = true
		case st.ID.Equal(oidQcType):
			if seenType {
				return nil, malformed("QCStatements lists QcType twice", nil)
			}
			seenType = true
			if err := q.parseTypes(st.Info.FullBytes); err != nil {
				return nil, err
			}
		case st.ID.Equal(oidPSD2Statement):
			if q.PSD2 != nil {
				return nil, malformed("QCStatements lists the PSD2 statement twice", nil)
			}
			p, err := parsePSD2(st.Info.FullBytes)
			if err != nil {
				return nil, err
			}
			q.PSD2 = p
		}
	}
	return q, nil
}

func (q *QCStatements) parseTypes(info []byte) error {
	var types []asn1.ObjectIdentifier
	rest, err := asn1.Unmarshal(info, &types)
	if err != nil || len(rest) != 0 {
		return malformed("QcType is not a SEQUENCE OF OBJECT IDENTIFIER", err)
	}
	for _, t := range types {
		switch {
		case t.Equal(oidQcTypeESign):
			q.ESign = true
		case t.Equal(oidQcTypeESeal):
			q.ESeal = true
		case t.Equal(oidQcTypeWeb):
			q.Web = true
		}
	}
	return nil
}

func parsePSD2(info []byte) (*PSD2Statement, error) {
	var p psd2QcType
	rest, err := asn1.Unmarshal(info, &p)
	if err != nil || len(rest) != 0 {
		return nil, malformed("PSD2 statement is not a PSD2QcType (rolesOfPSP, nCAName, nCAId) as in ETSI TS 119 495", err)
	}
	if !validStatementString(p.NCAName) {
		return nil, malformed("PSD2 statement nCAName must be 1 to 256 printable characters", nil)
	}
	if !validStatementString(p.NCAID) {
		return nil, malformed("PSD2 statement nCAId must be 1 to 256 printable characters", nil)
	}
	s := &PSD2Statement{NCAName: p.NCAName, NCAID: p.NCAID, Roles: make([]string, 0, len(p.Roles))}
	for _, r := range p.Roles {
		if !validStatementString(r.Name) {
			return nil, malformed("PSD2 roleOfPspName must be 1 to 256 printable characters", nil)
		}
		want := roleNameForOID(r.OID)
		if want == "" {
			if roleOIDForName(r.Name) {
				return nil, malformed("PSD2 role "+r.Name+" has an OID that is not its own (TS 119 495 GEN-5.2.2-5)", nil)
			}
			continue // a role this package does not know grants nothing
		}
		if r.Name != want {
			return nil, malformed("PSD2 role OID of "+want+" carries a different roleOfPspName (TS 119 495 GEN-5.2.2-5)", nil)
		}
		if !s.HasRole(want) {
			s.Roles = append(s.Roles, want)
		}
	}
	return s, nil
}

// roleNameForOID returns the role name of a known role OID, or "".
func roleNameForOID(oid asn1.ObjectIdentifier) string {
	if len(oid) != len(oidPSD2RolePrefix)+1 || !oid[:len(oidPSD2RolePrefix)].Equal(oidPSD2RolePrefix) {
		return ""
	}
	if last := oid[len(oid)-1]; last > 0 && last < len(psd2RoleNames) {
		return psd2RoleNames[last]
	}
	return ""
}

// roleOIDForName reports whether name is one of the known role names.
func roleOIDForName(name string) bool {
	for _, n := range psd2RoleNames {
		if n != "" && n == name {
			return true
		}
	}
	return false
}

// validStatementString enforces SIZE(1..256) and no control characters,
// since these strings end up in logs and in the context passed to the
// backend.
func validStatementString(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxStatementString {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return false
		}
	}
	return true
}

func malformed(reason string, err error) *Error {
	if err == nil {
		err = errors.New(reason)
	}
	return &Error{Kind: KindInvalid, Reason: reason, Err: err}
}
