package signature

import (
	"encoding/asn1"
	"strconv"
	"strings"
)

// attributeNames maps lower-case attribute type names, as written in DN
// strings by RFC 4514, RFC 2253, OpenSSL, Java, .NET and Go, to their OIDs.
// Aliases map to the same OID, so S and ST, or E and emailAddress, compare
// equal. Dotted OIDs of these types are added by init, so the common
// "2.5.4.97" needs no OID parsing.
var attributeNames = map[string]asn1.ObjectIdentifier{
	"cn":                              {2, 5, 4, 3},
	"commonname":                      {2, 5, 4, 3},
	"surname":                         {2, 5, 4, 4},
	"sn":                              {2, 5, 4, 4},
	"serialnumber":                    {2, 5, 4, 5},
	"c":                               {2, 5, 4, 6},
	"countryname":                     {2, 5, 4, 6},
	"l":                               {2, 5, 4, 7},
	"localityname":                    {2, 5, 4, 7},
	"st":                              {2, 5, 4, 8},
	"s":                               {2, 5, 4, 8},
	"stateorprovincename":             {2, 5, 4, 8},
	"street":                          {2, 5, 4, 9},
	"streetaddress":                   {2, 5, 4, 9},
	"o":                               {2, 5, 4, 10},
	"organizationname":                {2, 5, 4, 10},
	"ou":                              {2, 5, 4, 11},
	"organizationalunitname":          {2, 5, 4, 11},
	"title":                           {2, 5, 4, 12},
	"t":                               {2, 5, 4, 12},
	"description":                     {2, 5, 4, 13},
	"businesscategory":                {2, 5, 4, 15},
	"postalcode":                      {2, 5, 4, 17},
	"name":                            {2, 5, 4, 41},
	"givenname":                       {2, 5, 4, 42},
	"gn":                              {2, 5, 4, 42},
	"g":                               {2, 5, 4, 42},
	"initials":                        {2, 5, 4, 43},
	"generationqualifier":             {2, 5, 4, 44},
	"dnqualifier":                     {2, 5, 4, 46},
	"pseudonym":                       {2, 5, 4, 65},
	"organizationidentifier":          {2, 5, 4, 97},
	"e":                               {1, 2, 840, 113549, 1, 9, 1},
	"email":                           {1, 2, 840, 113549, 1, 9, 1},
	"emailaddress":                    {1, 2, 840, 113549, 1, 9, 1},
	"uid":                             {0, 9, 2342, 19200300, 100, 1, 1},
	"userid":                          {0, 9, 2342, 19200300, 100, 1, 1},
	"dc":                              {0, 9, 2342, 19200300, 100, 1, 25},
	"domaincomponent":                 {0, 9, 2342, 19200300, 100, 1, 25},
	"jurisdictionl":                   {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 1},
	"jurisdictionlocalityname":        {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 1},
	"jurisdictionst":                  {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 2},
	"jurisdictionstateorprovincename": {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 2},
	"jurisdictionc":                   {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 3},
	"jurisdictioncountryname":         {1, 3, 6, 1, 4, 1, 311, 60, 2, 1, 3},
}

func init() {
	dotted := make(map[string]asn1.ObjectIdentifier, len(attributeNames))
	for _, oid := range attributeNames {
		dotted[oid.String()] = oid
	}
	for s, oid := range dotted {
		attributeNames[s] = oid
	}
}

// maxAttributeNameLen is the longest name worth looking up in
// attributeNames; longer ones are parsed as OIDs or rejected.
const maxAttributeNameLen = 40

// attributeType resolves an attribute type as written in a DN string: a
// name from attributeNames (case-insensitive), a dotted OID, or a dotted
// OID prefixed with "OID." (any case). It returns false for anything else.
func attributeType(name string) (asn1.ObjectIdentifier, bool) {
	if len(name) <= maxAttributeNameLen {
		var buf [maxAttributeNameLen]byte
		for i := 0; i < len(name); i++ {
			c := name[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		// The compiler does not copy buf for a map lookup.
		if oid, ok := attributeNames[string(buf[:len(name)])]; ok {
			return oid, true
		}
	}
	if len(name) > 4 && strings.EqualFold(name[:4], "oid.") {
		name = name[4:]
		if oid, ok := attributeNames[name]; ok {
			return oid, true
		}
	}
	return parseOID(name)
}

// maxOIDArcs bounds a dotted OID; real attribute types have at most a
// dozen arcs.
const maxOIDArcs = 32

// parseOID parses a dotted-decimal OID with at least two arcs, a first arc
// of 0, 1 or 2, and no leading zeros.
func parseOID(s string) (asn1.ObjectIdentifier, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return nil, false
	}
	n := strings.Count(s, ".") + 1
	if n < 2 || n > maxOIDArcs {
		return nil, false
	}
	oid := make(asn1.ObjectIdentifier, 0, n)
	for _, arc := range strings.Split(s, ".") {
		if arc == "" || len(arc) > 1 && arc[0] == '0' || strings.Trim(arc, "0123456789") != "" {
			return nil, false
		}
		v, err := strconv.Atoi(arc)
		if err != nil {
			return nil, false
		}
		oid = append(oid, v)
	}
	if oid[0] > 2 || oid[0] < 2 && oid[1] > 39 {
		return nil, false
	}
	return oid, true
}
