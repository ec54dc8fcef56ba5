package testidp

import (
	"context"
	"time"
)

// The provider's clock offset (Provider.SetClockOffset) shifts the times
// in the ID tokens it issues. op reads the wall clock itself when it stamps
// an ID token and offers no clock to replace, but it does read two values
// from the client, and those are enough for an exact shift by d:
//
//	iat       = now - ClockSkew
//	auth_time = login - ClockSkew
//	exp       = now + ClockSkew + IDTokenLifetime
//
// so ClockSkew = -d and IDTokenLifetime = lifetime + 2d give iat = now+d,
// auth_time = login+d and exp = now+d+lifetime. op also adds ClockSkew to
// the access token's expiry when it computes expires_in, so the storage
// hands op that expiry shifted by d (accessTokenExpiryForOp) and
// expires_in stays the true lifetime.
//
// Each HTTP request reads the offset once, when it arrives (controls.go),
// and carries it in its context, so a token response never mixes two
// offsets when SetClockOffset runs concurrently.

type clockOffsetKey struct{}

func withClockOffset(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, clockOffsetKey{}, d)
}

// clockOffsetFrom is the offset the request carrying ctx was stamped with.
func clockOffsetFrom(ctx context.Context) time.Duration {
	d, _ := ctx.Value(clockOffsetKey{}).(time.Duration)
	return d
}

// skewFor is the client's ClockSkew that shifts op's clock by d.
func skewFor(d time.Duration) time.Duration { return -d }

// lifetimeFor is the client's IDTokenLifetime that, with skewFor(d),
// gives ID tokens the given lifetime on the shifted clock.
func lifetimeFor(lifetime, d time.Duration) time.Duration { return lifetime + 2*d }

// accessTokenExpiryForOp is the expiry the storage reports to op for an
// access token truly expiring at exp, so that op's expires_in, which adds
// ClockSkew, comes out as the true remaining lifetime.
func accessTokenExpiryForOp(exp time.Time, d time.Duration) time.Time { return exp.Add(d) }
