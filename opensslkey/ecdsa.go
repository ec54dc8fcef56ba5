//go:build cgo && !obgw_purego

package opensslkey

/*
#cgo LDFLAGS: -lcrypto
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/x509.h>
#include <openssl/err.h>

// As in rsa.go, both functions leave the thread's OpenSSL error queue as
// they found it.

// obgw_ec_key makes an EVP_PKEY of a SEC 1 ECPrivateKey in DER; NULL if
// OpenSSL refuses it or it is not on P-256.
static EVP_PKEY *obgw_ec_key(const unsigned char *der, long len) {
	ERR_set_mark();
	const unsigned char *p = der;
	EVP_PKEY *pkey = d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, len);
	if (pkey != NULL && (p != der + len || !EVP_PKEY_is_a(pkey, "EC") || EVP_PKEY_get_bits(pkey) != 256)) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
	ERR_pop_to_mark();
	return pkey;
}

// obgw_ec_ctx makes a signing context of pkey for SHA-256 digests; NULL
// if OpenSSL cannot. One context signs any number of digests, one at a
// time: making it (OpenSSL 3 fetches the signature algorithm from its
// provider, under locks) costs more than a tenth of a signature.
static EVP_PKEY_CTX *obgw_ec_ctx(EVP_PKEY *pkey) {
	ERR_set_mark();
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
	if (ctx != NULL
		&& (EVP_PKEY_sign_init(ctx) != 1
			|| EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) != 1)) {
		EVP_PKEY_CTX_free(ctx);
		ctx = NULL;
	}
	ERR_pop_to_mark();
	return ctx;
}

// obgw_ec_sign writes the ECDSA signature of a SHA-256 digest, the DER
// ECDSA-Sig-Value, into sig (*siglen bytes of room) and sets *siglen to
// its length. It returns 1 when it did, 0 otherwise.
static int obgw_ec_sign(EVP_PKEY_CTX *ctx, const unsigned char *digest, unsigned char *sig, size_t *siglen) {
	ERR_set_mark();
	int ok = EVP_PKEY_sign(ctx, sig, siglen, digest, 32) == 1;
	ERR_pop_to_mark();
	return ok;
}
*/
import "C"

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unsafe"
)

// maxECDSASignature is the longest DER ECDSA-Sig-Value on P-256: a
// SEQUENCE of two INTEGERs of at most 33 bytes each.
const maxECDSASignature = 72

// ECDSAKey is an ECDSA P-256 private key held in OpenSSL, a crypto.Signer
// of SHA-256 digests whose signatures are the ASN.1 DER of r and s, as
// crypto/ecdsa's SignASN1 writes them. Its methods may be called
// concurrently (each signature has its own EVP_PKEY_CTX). An ECDSAKey is
// used through the pointer NewECDSA returns, never copied: OpenSSL's copy
// is freed when that ECDSAKey is collected.
//
// OpenSSL 3.0 draws each signature's nonce from the private key, the
// digest and its random generator (BN_generate_dsa_nonce), so signing the
// same digest twice gives two signatures, both valid; crypto/ecdsa with a
// nil random source would give one (RFC 6979). Verifiers cannot tell
// them apart.
type ECDSAKey struct {
	pkey *C.EVP_PKEY
	pub  *ecdsa.PublicKey
	ctxs sync.Pool // of *ecContext: signing contexts, one per signature at a time
}

// ecContext is an EVP_PKEY_CTX ready to sign, freed when the pool drops it
// and it is collected. OpenSSL counts the context's reference to the key's
// EVP_PKEY, so either may be freed first.
type ecContext struct{ ctx *C.EVP_PKEY_CTX }

// NewECDSA copies k, a P-256 key, into OpenSSL. Before it returns, the
// key signs a test digest through OpenSSL, and NewECDSA fails unless
// crypto/ecdsa verifies that signature with k's public key: an OpenSSL
// that refuses the key, or signs otherwise, leaves the caller on
// crypto/ecdsa from the start.
func NewECDSA(k *ecdsa.PrivateKey) (*ECDSAKey, error) {
	if k == nil || k.Curve != elliptic.P256() {
		return nil, errors.New("opensslkey: only ECDSA P-256 keys")
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, fmt.Errorf("opensslkey: %w", err)
	}
	pkey := C.obgw_ec_key((*C.uchar)(unsafe.Pointer(&der[0])), C.long(len(der)))
	clear(der)
	if pkey == nil {
		return nil, errors.New("opensslkey: OpenSSL refused the P-256 key")
	}
	key := &ECDSAKey{pkey: pkey, pub: &k.PublicKey}
	runtime.AddCleanup(key, func(p *C.EVP_PKEY) { C.EVP_PKEY_free(p) }, pkey)
	test := sha256.Sum256([]byte("opensslkey: a signature crypto/ecdsa verifies"))
	sig, err := key.Sign(nil, test[:], crypto.SHA256)
	if err != nil {
		return nil, err
	}
	if !ecdsa.VerifyASN1(&k.PublicKey, test[:], sig) {
		return nil, errors.New("opensslkey: crypto/ecdsa does not verify OpenSSL's signature")
	}
	return key, nil
}

// Public returns the key's public half.
func (k *ECDSAKey) Public() crypto.PublicKey { return k.pub }

// Sign signs a SHA-256 digest: opts must be crypto.SHA256 (or name it).
// The random source is not used: OpenSSL draws the nonce itself.
func (k *ECDSAKey) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts == nil || opts.HashFunc() != crypto.SHA256 {
		return nil, errors.New("opensslkey: only SHA-256 digests")
	}
	if len(digest) != 32 {
		return nil, fmt.Errorf("opensslkey: a SHA-256 digest is 32 bytes, not %d", len(digest))
	}
	c, _ := k.ctxs.Get().(*ecContext)
	if c == nil {
		ctx := C.obgw_ec_ctx(k.pkey)
		if ctx == nil {
			return nil, errors.New("opensslkey: OpenSSL could not make a signing context")
		}
		c = &ecContext{ctx: ctx}
		runtime.AddCleanup(c, func(ctx *C.EVP_PKEY_CTX) { C.EVP_PKEY_CTX_free(ctx) }, ctx)
	}
	sig := make([]byte, maxECDSASignature)
	n := C.size_t(len(sig))
	ok := C.obgw_ec_sign(c.ctx, (*C.uchar)(unsafe.Pointer(&digest[0])), (*C.uchar)(unsafe.Pointer(&sig[0])), &n)
	k.ctxs.Put(c)
	if ok != 1 || n == 0 || int(n) > len(sig) {
		return nil, errors.New("opensslkey: OpenSSL could not sign")
	}
	return sig[:n], nil
}
