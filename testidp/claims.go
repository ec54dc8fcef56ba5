package testidp

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// NationalIDClaim is the private claim that carries the user's national
// identity number, in the ID token and at the userinfo endpoint, as BankID
// brokers carry it ("nnin").
const NationalIDClaim = "nnin"

// Subject is the sub the provider gives the user with this national
// identity number: opaque, so that a relying party cannot take sub for the
// national identity number, and stable across logins and across providers,
// so that a demo keeps its users between runs.
func Subject(nationalID string) string {
	sum := sha256.Sum256([]byte("obgw testidp subject\x00" + nationalID))
	return hex.EncodeToString(sum[:16])
}

// setUserinfo writes what the provider says about u: sub, name and
// nnin. The same claims go into the ID token and the userinfo response,
// whatever scopes were asked for, as a BankID broker configured for the
// relying party releases them.
func setUserinfo(info *oidc.UserInfo, u *User) {
	info.Subject = Subject(u.NationalID)
	info.Name = u.Name
	info.AppendClaims(NationalIDClaim, u.NationalID)
}
