//go:build cgo && !obgw_purego

package opensslrsa

/*
#cgo LDFLAGS: -lcrypto
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/err.h>

// Both functions leave the thread's OpenSSL error queue as they found it
// (OpenSSL 3's decoders may queue errors even when they succeed), so that
// another user of libcrypto on the thread, such as a PKCS #11 module, does
// not read them.

// obgw_rsa_key makes an EVP_PKEY of a PKCS #1 RSAPrivateKey in DER; NULL
// if OpenSSL refuses it.
static EVP_PKEY *obgw_rsa_key(const unsigned char *der, long len) {
	ERR_set_mark();
	const unsigned char *p = der;
	EVP_PKEY *pkey = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, len);
	if (pkey != NULL && p != der + len) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
	ERR_pop_to_mark();
	return pkey;
}

// obgw_rsa_sign writes the RSASSA-PKCS1-v1_5 signature of a SHA-256
// digest into sig (siglen bytes, the modulus' size). It returns 1 when it
// did, 0 otherwise.
static int obgw_rsa_sign(EVP_PKEY *pkey, const unsigned char *digest, unsigned char *sig, size_t siglen) {
	int ok = 0;
	size_t n = siglen;
	ERR_set_mark();
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
	if (ctx != NULL
		&& EVP_PKEY_sign_init(ctx) == 1
		&& EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1
		&& EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1
		&& EVP_PKEY_sign(ctx, sig, &n, digest, 32) == 1
		&& n == siglen) {
		ok = 1;
	}
	EVP_PKEY_CTX_free(ctx);
	ERR_pop_to_mark();
	return ok;
}
*/
import "C"

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"runtime"
	"unsafe"
)

// Available reports whether this build signs through OpenSSL.
const Available = true

// Key is an RSA private key held in OpenSSL, a crypto.Signer of
// RSASSA-PKCS1-v1_5 SHA-256 signatures. Its methods may be called
// concurrently (each signature has its own EVP_PKEY_CTX; OpenSSL guards
// the key's blinding). A Key is used through the pointer New returns,
// never copied: OpenSSL's copy is freed when that Key is collected.
type Key struct {
	pkey *C.EVP_PKEY
	pub  *rsa.PublicKey
	size int // the modulus in bytes: every signature's length
}

// New copies k into OpenSSL. k is validated and precomputed by crypto/x509
// or crypto/rsa before (pemfile.PrivateKey does both); New refuses keys of
// more than two primes, which OpenSSL's PKCS #1 form would hold but
// crypto/x509 no longer writes. Before it returns, the key signs a test
// digest through OpenSSL and through crypto/rsa, and New fails unless the
// two signatures are the same bytes: an OpenSSL configured to refuse the
// key (a FIPS-only default provider, say), or one that signs otherwise,
// leaves the caller on crypto/rsa from the start.
func New(k *rsa.PrivateKey) (*Key, error) {
	if k == nil || len(k.Primes) != 2 {
		return nil, errors.New("opensslrsa: only two-prime RSA keys")
	}
	der := x509.MarshalPKCS1PrivateKey(k)
	pkey := C.obgw_rsa_key((*C.uchar)(unsafe.Pointer(&der[0])), C.long(len(der)))
	clear(der)
	if pkey == nil {
		return nil, errors.New("opensslrsa: OpenSSL refused the RSA key")
	}
	key := &Key{pkey: pkey, pub: &k.PublicKey, size: k.Size()}
	runtime.AddCleanup(key, func(p *C.EVP_PKEY) { C.EVP_PKEY_free(p) }, pkey)
	test := sha256.Sum256([]byte("opensslrsa: the same bytes as crypto/rsa"))
	got, err := key.Sign(nil, test[:], crypto.SHA256)
	if err != nil {
		return nil, err
	}
	want, err := rsa.SignPKCS1v15(nil, k, crypto.SHA256, test[:])
	if err != nil || !bytes.Equal(got, want) {
		return nil, errors.New("opensslrsa: OpenSSL's signature differs from crypto/rsa's")
	}
	return key, nil
}

// Public returns the key's public half.
func (k *Key) Public() crypto.PublicKey { return k.pub }

// Sign signs a SHA-256 digest, RSASSA-PKCS1-v1_5: opts must be
// crypto.SHA256 (or name it). The random source is not used: the
// signature is deterministic, and OpenSSL draws the blinding itself.
func (k *Key) Sign(_ io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts == nil || opts.HashFunc() != crypto.SHA256 {
		return nil, errors.New("opensslrsa: only SHA-256 digests, PKCS #1 v1.5")
	}
	if _, pss := opts.(*rsa.PSSOptions); pss {
		return nil, errors.New("opensslrsa: only PKCS #1 v1.5, not PSS")
	}
	if len(digest) != 32 {
		return nil, fmt.Errorf("opensslrsa: a SHA-256 digest is 32 bytes, not %d", len(digest))
	}
	sig := make([]byte, k.size)
	ok := C.obgw_rsa_sign(k.pkey, (*C.uchar)(unsafe.Pointer(&digest[0])), (*C.uchar)(unsafe.Pointer(&sig[0])), C.size_t(len(sig)))
	runtime.KeepAlive(k)
	if ok != 1 {
		return nil, errors.New("opensslrsa: OpenSSL could not sign")
	}
	return sig, nil
}
