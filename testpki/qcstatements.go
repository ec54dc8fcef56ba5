package testpki

import (
	"encoding/asn1"
	"fmt"
)

// Object identifiers from RFC 3739, EN 319 412-5, EN 319 411-2 and
// ETSI TS 119 495, as the test certificates use them.
var (
	OIDQCStatements   = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 1, 3}
	OIDQcCompliance   = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 1}
	OIDQcPDS          = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 5}
	OIDQcType         = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6}
	OIDQcTypeESign    = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 1}
	OIDQcTypeESeal    = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 2}
	OIDQcTypeWeb      = asn1.ObjectIdentifier{0, 4, 0, 1862, 1, 6, 3}
	OIDPSD2Statement  = asn1.ObjectIdentifier{0, 4, 0, 19495, 2}
	OIDOrganizationID = asn1.ObjectIdentifier{2, 5, 4, 97}
)

// NCA of the test TPPs (TS 119 495 v1.2.1 Annex D).
const (
	NCAName = "The Financial Supervisory Authority of Norway"
	NCAID   = "NO-FSA"
)

// PSD2Role is one RoleOfPSP: an OID and the name that goes with it. Tests
// may pair them wrongly on purpose.
type PSD2Role struct {
	OID  asn1.ObjectIdentifier
	Name string `asn1:"utf8"`
}

// roleOIDs maps the TS 119 495 role names to their OIDs.
var roleOIDs = map[string]asn1.ObjectIdentifier{
	"PSP_AS": {0, 4, 0, 19495, 1, 1},
	"PSP_PI": {0, 4, 0, 19495, 1, 2},
	"PSP_AI": {0, 4, 0, 19495, 1, 3},
	"PSP_IC": {0, 4, 0, 19495, 1, 4},
}

// Roles returns the RoleOfPSP entries for role names such as "PSP_AI".
func Roles(names ...string) ([]PSD2Role, error) {
	out := make([]PSD2Role, 0, len(names))
	for _, n := range names {
		oid, ok := roleOIDs[n]
		if !ok {
			return nil, fmt.Errorf("testpki: unknown PSD2 role %q", n)
		}
		out = append(out, PSD2Role{OID: oid, Name: n})
	}
	return out, nil
}

// QCStatementsSpec describes the qcStatements extension to encode.
type QCStatementsSpec struct {
	// Compliance adds id-etsi-qcs-QcCompliance.
	Compliance bool
	// Types, if non-empty, adds id-etsi-qcs-QcType with these OIDs.
	Types []asn1.ObjectIdentifier
	// PDSURL, if set, adds id-etsi-qcs-QcPDS with one English location: a
	// statement the gateway must skip.
	PDSURL string
	// PSD2, if set, adds the id-etsi-psd2-qcStatement.
	PSD2 *PSD2Spec
}

// PSD2Spec is the PSD2QcType of TS 119 495.
type PSD2Spec struct {
	Roles   []PSD2Role
	NCAName string
	NCAID   string
}

type qcStatement struct {
	ID   asn1.ObjectIdentifier
	Info asn1.RawValue `asn1:"optional"`
}

type psd2QcType struct {
	Roles   []PSD2Role
	NCAName string `asn1:"utf8"`
	NCAID   string `asn1:"utf8"`
}

type pdsLocation struct {
	URL      string `asn1:"ia5"`
	Language string `asn1:"printable"`
}

// MarshalQCStatements encodes spec as the DER value of a qcStatements
// extension, statements in the order QcCompliance, QcType, QcPDS, PSD2.
func MarshalQCStatements(spec QCStatementsSpec) ([]byte, error) {
	var sts []qcStatement
	if spec.Compliance {
		sts = append(sts, qcStatement{ID: OIDQcCompliance})
	}
	if len(spec.Types) > 0 {
		info, err := asn1.Marshal(spec.Types)
		if err != nil {
			return nil, fmt.Errorf("testpki: QcType: %w", err)
		}
		sts = append(sts, qcStatement{ID: OIDQcType, Info: asn1.RawValue{FullBytes: info}})
	}
	if spec.PDSURL != "" {
		info, err := asn1.Marshal([]pdsLocation{{URL: spec.PDSURL, Language: "en"}})
		if err != nil {
			return nil, fmt.Errorf("testpki: QcPDS: %w", err)
		}
		sts = append(sts, qcStatement{ID: OIDQcPDS, Info: asn1.RawValue{FullBytes: info}})
	}
	if spec.PSD2 != nil {
		roles := spec.PSD2.Roles
		if roles == nil {
			roles = []PSD2Role{} // SEQUENCE OF must be present even when empty
		}
		info, err := asn1.Marshal(psd2QcType{Roles: roles, NCAName: spec.PSD2.NCAName, NCAID: spec.PSD2.NCAID})
		if err != nil {
			return nil, fmt.Errorf("testpki: PSD2 statement: %w", err)
		}
		sts = append(sts, qcStatement{ID: OIDPSD2Statement, Info: asn1.RawValue{FullBytes: info}})
	}
	if sts == nil {
		sts = []qcStatement{}
	}
	return asn1.Marshal(sts)
}
