package signature

import (
	"encoding/base64"
	"mime"
	"strings"
)

// Format is the Signature header value Parse (ParseSeal for
// ecdsa-sha256) reads back: keyId, algorithm, the signed header names in
// order and the signature in base64. A value that is not ASCII (a keyId whose issuer has non-ASCII
// characters) is sent as one RFC 2047 B-encoded UTF-8 word, as contract
// section 3 and the description's rule 8 have it. Both signers of this
// module use it: the TPP's (tppclient) and the bank's (gateway/seal).
func Format(keyID, algorithm string, headers []string, sig []byte) string {
	v := `keyId="` + keyID + `",algorithm="` + algorithm + `",headers="` +
		strings.Join(headers, " ") + `",signature="` + base64.StdEncoding.EncodeToString(sig) + `"`
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return mime.BEncoding.Encode("utf-8", v)
		}
	}
	return v
}
