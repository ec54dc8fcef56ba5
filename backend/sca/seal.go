package sca

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/obgw/obgw/backend/store"
)

// A request without consent answers 401 with an scaRedirect link, and
// many such requests are never followed by a PSU: their flows are not
// stored. The link instead carries the flow itself (TPP, session id,
// redirect URI, purpose, expiry, the id it will have), sealed with
// AES-256-GCM under a key every instance reads from the store (migration
// 9), and the flow is stored when the PSU opens the link. A link is bound
// to one flow id, so opening it twice (two tabs, a reload) finds the same
// flow; once expired it opens nothing.

// SealedBase is the path of sealed SCA links.
const SealedBase = "/v1/sca/s/"

// MaxSealedBytes bounds a sealed link's token: the flow's headers at their
// bounds (TPP-Redirect-URI 1024 bytes, TPP-Session-ID 128) fit.
const MaxSealedBytes = 2048

// sealVersion is the first byte of a sealed flow's plain text. Version 3
// ends with a byte of flags (sealAppPreferred) and the TPP's registered
// name; version 2 with the flags only; version 1, which links made before
// them still carry, with neither.
const sealVersion = 3

// sealAppPreferred flags a flow whose TPP preferred the bank's app.
const sealAppPreferred = 1

// keyReload bounds how often an unknown key id in a link makes the store
// be asked for keys again (another instance may have added one).
const keyReload = time.Second

// sealingKeys keeps the keys that seal SCA links.
type sealingKeys interface {
	SealingKeys(ctx context.Context) ([]store.SealingKey, error)
	AddSealingKey(ctx context.Context, k *store.SealingKey) error
}

// sealer seals and opens SCA links with the store's sealing keys, adding a
// key when the newest is older than store.SealingKeyRotation. The store is
// read without holding mu, one read at a time (flight), so a slow store
// does not queue every request behind the lock.
type sealer struct {
	st  sealingKeys
	now func() time.Time

	flight singleflight.Group

	mu    sync.Mutex
	keys  []sealingKey // newest first
	tried time.Time    // the last read of the store's keys, even failed
}

type sealingKey struct {
	id      string
	created time.Time
	aead    cipher.AEAD
}

// fetch reads the store's keys, one read at a time however many ask, and
// keeps them.
func (k *sealer) fetch(ctx context.Context) ([]sealingKey, error) {
	v, err, _ := k.flight.Do("keys", func() (any, error) {
		k.mu.Lock()
		k.tried = k.now()
		k.mu.Unlock()
		ks, err := k.st.SealingKeys(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		keys := make([]sealingKey, 0, len(ks))
		for _, sk := range ks {
			block, err := aes.NewCipher(sk.Secret)
			if err != nil {
				return nil, err
			}
			aead, err := cipher.NewGCM(block)
			if err != nil {
				return nil, err
			}
			keys = append(keys, sealingKey{id: sk.ID, created: sk.CreatedAt, aead: aead})
		}
		k.mu.Lock()
		k.keys = keys
		k.mu.Unlock()
		return keys, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]sealingKey), nil
}

// fresh reports whether the newest of keys may still seal.
func (k *sealer) fresh(keys []sealingKey) bool {
	return len(keys) > 0 && k.now().Sub(keys[0].created) < store.SealingKeyRotation
}

// current returns the key to seal with, reading or adding one as needed.
func (k *sealer) current(ctx context.Context) (sealingKey, error) {
	k.mu.Lock()
	keys := k.keys
	k.mu.Unlock()
	if k.fresh(keys) {
		return keys[0], nil
	}
	v, err, _ := k.flight.Do("current", func() (any, error) {
		keys, err := k.fetch(ctx)
		if err != nil || k.fresh(keys) {
			return keys, err
		}
		// None, or the newest is due for rotation: add one. Instances
		// that race add one each; any of them seals and opens.
		sk := store.SealingKey{ID: randomKeyID(), Secret: make([]byte, 32)}
		rand.Read(sk.Secret) // never fails (crypto/rand since Go 1.24)
		if err := k.st.AddSealingKey(context.WithoutCancel(ctx), &sk); err != nil {
			return nil, err
		}
		return k.fetch(ctx)
	})
	if err != nil {
		return sealingKey{}, err
	}
	keys = v.([]sealingKey)
	if len(keys) == 0 {
		return sealingKey{}, errors.New("the sealing key just added is not in the store")
	}
	return keys[0], nil
}

// byID returns the key a link names, reading the store's keys again (at
// most once per keyReload, failed reads included) when it is not held
// here: another instance may have added it.
func (k *sealer) byID(ctx context.Context, id string) (sealingKey, bool) {
	find := func(keys []sealingKey) (sealingKey, bool) {
		for _, key := range keys {
			if key.id == id {
				return key, true
			}
		}
		return sealingKey{}, false
	}
	k.mu.Lock()
	keys, tried := k.keys, k.tried
	k.mu.Unlock()
	if key, ok := find(keys); ok {
		return key, true
	}
	if k.now().Sub(tried) < keyReload {
		return sealingKey{}, false
	}
	keys, err := k.fetch(ctx)
	if err != nil {
		return sealingKey{}, false
	}
	return find(keys)
}

func randomKeyID() string {
	var b [6]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// seal returns the token of a sealed link to f (not stored): f's ID (set
// here), TPP, session id, redirect URI, purpose, resource, expiry and
// whether the TPP preferred the bank's app.
func (k *sealer) seal(ctx context.Context, f *store.SCAFlow) (string, error) {
	f.ID = store.NewID()
	plain := make([]byte, 0, 64+len(f.TPP)+len(f.TPPSessionID)+len(f.RedirectURI))
	plain = append(plain, sealVersion)
	plain = binary.BigEndian.AppendUint64(plain, uint64(f.ExpiresAt.UnixMicro()))
	plain = appendFields(plain, f.ID, f.TPP, f.TPPSessionID, f.RedirectURI, f.Purpose, f.ResourceID)
	var flags byte
	if f.AppPreferred {
		flags |= sealAppPreferred
	}
	plain = append(plain, flags)
	plain = appendFields(plain, f.TPPName)
	return k.sealPlain(ctx, plain)
}

// appendFields appends each field to a sealed text, its length first
// (uvarint); readFields reads them back.
func appendFields(plain []byte, fields ...string) []byte {
	for _, s := range fields {
		plain = binary.AppendUvarint(plain, uint64(len(s)))
		plain = append(plain, s...)
	}
	return plain
}

// readFields reads appendFields' fields into dsts and returns what
// follows them, or false when rest is too short for them.
func readFields(rest []byte, dsts ...*string) ([]byte, bool) {
	for _, dst := range dsts {
		l, w := binary.Uvarint(rest)
		if w <= 0 || l > uint64(len(rest)-w) {
			return nil, false
		}
		*dst, rest = string(rest[w:w+int(l)]), rest[w+int(l):]
	}
	return rest, true
}

// sealPlain seals plain under the current key: the key's id, a dot, and
// base64url of the nonce and the ciphertext (the key id authenticated
// with it). Each kind of sealed text starts with a byte of its own, so
// one kind never opens as another.
func (k *sealer) sealPlain(ctx context.Context, plain []byte) (string, error) {
	key, err := k.current(ctx)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, key.aead.NonceSize(), key.aead.NonceSize()+len(plain)+key.aead.Overhead())
	rand.Read(nonce)
	sealed := key.aead.Seal(nonce, nonce, plain, []byte(key.id))
	return key.id + "." + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// openPlain returns what sealPlain sealed into token, or false when the
// token is not one of ours (malformed, forged, or sealed with a key no
// longer kept).
func (k *sealer) openPlain(ctx context.Context, token string) ([]byte, bool) {
	if len(token) > MaxSealedBytes {
		return nil, false
	}
	kid, text, ok := strings.Cut(token, ".")
	if !ok || kid == "" || len(kid) > 64 {
		return nil, false
	}
	sealed, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, false
	}
	key, ok := k.byID(ctx, kid)
	if !ok || len(sealed) < key.aead.NonceSize() {
		return nil, false
	}
	n := key.aead.NonceSize()
	plain, err := key.aead.Open(nil, sealed[:n], sealed[n:], []byte(kid))
	return plain, err == nil
}

// open returns the flow a sealed link's token carries, pending and not
// stored, or false when the token is not one of ours (malformed, forged,
// or sealed with a key no longer kept). Expiry is the caller's to check.
func (k *sealer) open(ctx context.Context, token string) (*store.SCAFlow, bool) {
	plain, ok := k.openPlain(ctx, token)
	if !ok || len(plain) < 9 || plain[0] < 1 || plain[0] > sealVersion {
		return nil, false
	}
	f := &store.SCAFlow{State: store.FlowPending, ExpiresAt: time.UnixMicro(int64(binary.BigEndian.Uint64(plain[1:9]))).UTC()}
	rest, ok := readFields(plain[9:], &f.ID, &f.TPP, &f.TPPSessionID, &f.RedirectURI, &f.Purpose, &f.ResourceID)
	if !ok {
		return nil, false
	}
	if plain[0] >= 2 {
		if len(rest) < 1 {
			return nil, false
		}
		f.AppPreferred, rest = rest[0]&sealAppPreferred != 0, rest[1:]
	}
	if plain[0] >= 3 {
		if rest, ok = readFields(rest, &f.TPPName); !ok {
			return nil, false
		}
	}
	if len(rest) != 0 {
		return nil, false
	}
	return f, true
}

// OpenSealed stores the flow a sealed link carries when the PSU opens
// the link, and sends the browser on to the flow's page. Opening it again
// finds the flow stored. An expired link whose flow was never stored ends
// with the failure redirect, as an expired stored flow does.
func (s *Service) OpenSealed(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Strict-Transport-Security", HSTS)
	if !s.identifies() {
		scaError(w, errNoSCAProvider, http.StatusServiceUnavailable)
		return
	}
	f, ok := s.seal.open(r.Context(), r.PathValue("sealed"))
	if !ok {
		scaError(w, errUnknownLink, http.StatusNotFound)
		return
	}
	switch _, err := s.cfg.Store.GetSCAFlow(r.Context(), f.ID); {
	case err == nil:
		// Opened before: its page says where the flow is.
	case !errors.Is(err, store.ErrNotFound):
		scaError(w, errUnavailable, http.StatusServiceUnavailable)
		return
	case !s.cfg.Now().Before(f.ExpiresAt):
		// RedirectURI is the one the gateway validated when the link was
		// made, sealed since.
		s.redirect(w, r, f, failure(outcomeTooLong))
		return
	default:
		csrf, err := randomToken()
		if err != nil {
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
		f.CSRF = csrf
		// A concurrent opening of the same link may store it first.
		switch err := s.cfg.Store.CreateSCAFlow(r.Context(), f); {
		case err == nil:
			s.observeSCA(StepStarted, "")
		case !errors.Is(err, store.ErrConflict):
			scaError(w, errUnavailable, http.StatusServiceUnavailable)
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, scaHref(r, f.ID), http.StatusSeeOther)
}
