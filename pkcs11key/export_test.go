//go:build cgo

package pkcs11key

import (
	"testing"
	"time"
)

// clockOrigin is later than any Signer of the tests was opened.
var clockOrigin = time.Now().Add(time.Hour)

// SetClock sets the reopening clock to a fixed instant, seconds after
// clockOrigin, until t ends.
func SetClock(t *testing.T, seconds int) {
	origin := clockOrigin
	old := now
	now = func() time.Time { return origin.Add(time.Duration(seconds) * time.Second) }
	t.Cleanup(func() { now = old })
}
