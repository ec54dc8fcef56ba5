//go:build cgo

package pkcs11key

import (
	"crypto"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThalesGroup/crypto11"
)

// reopenEvery bounds how often a failing Signer reopens its token.
const reopenEvery = time.Second

// now is the clock of reopening; tests swap it.
var now = time.Now

// Signer is a key in a PKCS #11 token as a crypto.Signer. Its methods may
// be called concurrently.
type Signer struct {
	loc *Location
	pub crypto.PublicKey

	failing atomic.Bool // the last signature failed

	mu       sync.Mutex
	ctx      *crypto11.Context
	key      crypto11.Signer
	lastOpen time.Time
}

// Open logs in to the token l names and finds its key pair.
func Open(l *Location) (*Signer, error) {
	ctx, key, err := open(l)
	if err != nil {
		return nil, err
	}
	return &Signer{loc: l, pub: key.Public(), ctx: ctx, key: key, lastOpen: now()}, nil
}

func open(l *Location) (*crypto11.Context, crypto11.Signer, error) {
	pin, err := l.pin()
	if err != nil {
		return nil, nil, err
	}
	ctx, err := crypto11.Configure(&crypto11.Config{Path: l.Module, TokenLabel: l.Token, TokenSerial: l.Serial, SlotNumber: l.Slot, Pin: pin})
	if err != nil {
		return nil, nil, fmt.Errorf("pkcs11: %s: %v", l, err)
	}
	key, err := ctx.FindKeyPair(l.ID, labelOrNil(l.Label))
	if err == nil && key == nil {
		err = errors.New("no such key pair (a private key with its public key, or its certificate)")
	}
	if err != nil {
		ctx.Close()
		return nil, nil, fmt.Errorf("pkcs11: %s: %v", l, err)
	}
	return ctx, key, nil
}

func labelOrNil(label string) []byte {
	if label == "" {
		return nil
	}
	return []byte(label)
}

// Public returns the key's public half, as read when it was opened.
func (s *Signer) Public() crypto.PublicKey { return s.pub }

// Sign signs digest in the token: RSA PKCS #1 v1.5 (opts a crypto.Hash),
// ECDSA as ASN.1 DER. When the token fails, it is reopened (at most once
// every reopenEvery) and the signature tried once more; the key found
// then must be the same.
func (s *Signer) Sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	sig, err := s.sign(rand, digest, opts)
	s.failing.Store(err != nil)
	return sig, err
}

// Available reports whether the last signature succeeded (or none was
// asked for yet).
func (s *Signer) Available() bool { return !s.failing.Load() }

func (s *Signer) sign(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	s.mu.Lock()
	key := s.key
	s.mu.Unlock()
	if key != nil {
		sig, err := key.Sign(rand, digest, opts)
		if err == nil {
			return sig, nil
		}
		if !s.reopen(key) {
			return nil, fmt.Errorf("pkcs11: %s: %v", s.loc, err)
		}
	} else if !s.reopen(nil) {
		return nil, fmt.Errorf("pkcs11: %s: the token is unavailable", s.loc)
	}
	s.mu.Lock()
	key = s.key
	s.mu.Unlock()
	sig, err := key.Sign(rand, digest, opts)
	if err != nil {
		return nil, fmt.Errorf("pkcs11: %s: %v", s.loc, err)
	}
	return sig, nil
}

// reopen replaces failed, the key that failed, by the key of a new login,
// unless another caller has already replaced it or the last try was less
// than reopenEvery ago. It reports whether s.key is now another key.
func (s *Signer) reopen(failed crypto11.Signer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.key != failed {
		return s.key != nil
	}
	if now().Sub(s.lastOpen) < reopenEvery {
		return false
	}
	s.lastOpen = now()
	if s.ctx != nil {
		s.ctx.Close()
		s.ctx, s.key = nil, nil
	}
	ctx, key, err := open(s.loc)
	if err != nil {
		return false
	}
	if pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(s.pub) {
		ctx.Close()
		return false
	}
	s.ctx, s.key = ctx, key
	return true
}

// Close logs out and releases the token.
func (s *Signer) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil {
		return nil
	}
	err := s.ctx.Close()
	s.ctx, s.key = nil, nil
	return err
}

// String names the key, never the PIN.
func (s *Signer) String() string { return s.loc.String() }
