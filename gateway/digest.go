package gateway

import (
	"net/http"

	"github.com/obgw/obgw/bgerror"
	"github.com/obgw/obgw/gateway/digest"
)

// checkDigest verifies Digest over the exact body bytes received. It is
// required for a request with a body unless the policy makes it optional.
func checkDigest(h http.Header, body []byte, p *Policy) (Decision, *bgerror.Error) {
	v := h["Digest"]
	if len(v) == 0 {
		if len(body) > 0 && !p.DigestOptional {
			return DecisionFail, bgerror.Format("Digest", "the Digest header is missing; send SHA-256=<base64 of the SHA-256 of the body> and sign it")
		}
		return DecisionSkip, nil
	}
	d, err := digest.Parse(v[0])
	if err != nil {
		return DecisionFail, bgerror.Format("Digest", err.Error())
	}
	if err := d.Verify(body); err != nil {
		return DecisionFail, bgerror.Format("Digest", err.Error())
	}
	return DecisionPass, nil
}
