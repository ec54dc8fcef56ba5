package tppclient

// The draft-cavage-http-signatures Appendix C test key (1024 bits, for
// tests only), verbatim from the reference.
const appendixCPrivateKey = `-----BEGIN RSA PRIVATE KEY-----
MIICXgIBAAKBgQDCFENGw33yGihy92pDjZQhl0C36rPJj+CvfSC8+q28hxA161QF
NUd13wuCTUcq0Qd2qsBe/2hFyc2DCJJg0h1L78+6Z4UMR7EOcpfdUE9Hf3m/hs+F
UR45uBJeDK1HSFHD8bHKD6kv8FPGfJTotc+2xjJwoYi+1hqp1fIekaxsyQIDAQAB
AoGBAJR8ZkCUvx5kzv+utdl7T5MnordT1TvoXXJGXK7ZZ+UuvMNUCdN2QPc4sBiA
QWvLw1cSKt5DsKZ8UETpYPy8pPYnnDEz2dDYiaew9+xEpubyeW2oH4Zx71wqBtOK
kqwrXa/pzdpiucRRjk6vE6YY7EBBs/g7uanVpGibOVAEsqH1AkEA7DkjVH28WDUg
f1nqvfn2Kj6CT7nIcE3jGJsZZ7zlZmBmHFDONMLUrXR/Zm3pR5m0tCmBqa5RK95u
412jt1dPIwJBANJT3v8pnkth48bQo/fKel6uEYyboRtA5/uHuHkZ6FQF7OUkGogc
mSJluOdc5t6hI1VsLn0QZEjQZMEOWr+wKSMCQQCC4kXJEsHAve77oP6HtG/IiEn7
kpyUXRNvFsDE0czpJJBvL/aRFUJxuRK91jhjC68sA7NsKMGg5OXb5I5Jj36xAkEA
gIT7aFOYBFwGgQAQkWNKLvySgKbAZRTeLBacpHMuQdl1DfdntvAyqpAZ0lY0RKmW
G6aFKaqQfOXKCyWoUiVknQJAXrlgySFci/2ueKlIE1QqIiLSZ8V8OlpFLRnb1pzI
7U1yQXnTAEFYM560yJlzUpOb1V4cScGd365tiSMvxLOvTA==
-----END RSA PRIVATE KEY-----
`

const appendixCPublicKey = `-----BEGIN PUBLIC KEY-----
MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDCFENGw33yGihy92pDjZQhl0C3
6rPJj+CvfSC8+q28hxA161QFNUd13wuCTUcq0Qd2qsBe/2hFyc2DCJJg0h1L78+6
Z4UMR7EOcpfdUE9Hf3m/hs+FUR45uBJeDK1HSFHD8bHKD6kv8FPGfJTotc+2xjJw
oYi+1hqp1fIekaxsyQIDAQAB
-----END PUBLIC KEY-----
`

// referenceDate is the Date of every reference vector.
const referenceDate = "Sun, 05 Jan 2014 21:31:40 GMT"

// BG-1 of the reference.
const (
	bg1SigningString = "(request-target): post /v1/payments/sepa-credit-transfers?x=1\n" +
		"date: Sun, 05 Jan 2014 21:31:40 GMT\n" +
		"digest: SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=\n" +
		"x-request-id: 99391c7e-ad88-49ec-a2ad-99ddcb1f7721\n" +
		"psu-id: PSU-1234\n" +
		"tpp-redirect-uri: https://tpp.example.no/cb?state=abc"
	bg1Signature = "OauhSjeLkm7TZrCg8G3bIHtOnkleY/qZkk+xF9zftPx3p+MTPzbnJpJWFF7KUpxZLUmsHnbwOW62RGXMmTEdW8h5bdGHshwH4YsZMLlYvg2cim0Dniw/uy8mQQfmAtG6wLB5EYMNAIpvYrzcOGjRZfDYv6T0CKYt4U4t0cDXqSU="
)

// BG-2 of the reference.
const (
	bg2KeyID         = "SN=1A2B3C4D5E6F,CA=CN=Test QTSP Root CA,O=Test QTSP Ø AS,C=NO"
	bg2SigningString = "(request-target): get /v1/accounts\n" +
		"date: Sun, 05 Jan 2014 21:31:40 GMT\n" +
		"digest: SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n" +
		"x-request-id: 3f2504e0-4f89-41d3-9a0c-0305e82c3301\n" +
		"psu-id: Øyvind Ærø"
	bg2Decoded = `keyId="SN=1A2B3C4D5E6F,CA=CN=Test QTSP Root CA,O=Test QTSP Ø AS,C=NO",algorithm="rsa-sha256",headers="(request-target) date digest x-request-id psu-id",signature="MYcGLjiKk35StQqdBDixlYjtva8xjN2mb7uqeAowOwMmUFgdXMV+o+ux+z2dY+a+LSDa4j16AW5HqkE8UEesjELnOVDMniSwaf22tkccaDuQz4wXx7Gfy+TE9tkQqoA6DShasEPMyYFR9GvAq/2hVYb9PitP5RJbbYzSBUR2rBw="`
	bg2Encoded = `=?utf-8?b?a2V5SWQ9IlNOPTFBMkIzQzRENUU2RixDQT1DTj1UZXN0IFFUU1AgUm9vdCBD?= =?utf-8?b?QSxPPVRlc3QgUVRTUCDDmCBBUyxDPU5PIixhbGdvcml0aG09InJzYS1zaGEy?= =?utf-8?b?NTYiLGhlYWRlcnM9IihyZXF1ZXN0LXRhcmdldCkgZGF0ZSBkaWdlc3QgeC1y?= =?utf-8?b?ZXF1ZXN0LWlkIHBzdS1pZCIsc2lnbmF0dXJlPSJNWWNHTGppS2szNVN0UXFk?= =?utf-8?b?QkRpeGxZanR2YTh4ak4ybWI3dXFlQW93T3dNbVVGZ2RYTVYrbyt1eCt6MmRZ?= =?utf-8?b?K2ErTFNEYTRqMTZBVzVIcWtFOFVFZXNqRUxuT1ZETW5pU3dhZjIydGtjY2FE?= =?utf-8?b?dVF6NHdYeDdHZnkrVEU5dGtRcW9BNkRTaGFzRVBNeVlGUjlHdkFxLzJoVlli?= =?utf-8?b?OVBpdFA1UkpiYll6U0JVUjJyQnc9Ig==?=`
)

// Digests of the reference.
const (
	helloWorldBody   = `{"hello": "world"}`
	helloWorldDigest = "SHA-256=X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="
	emptyBodyDigest  = "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
)
