package accesslog

import (
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// Encoder is a zapcore.Encoder that applies filters to the fields at
// configured paths and writes everything through a wrapped encoder.
// Its output is that of Caddy's filter encoder with the same filters.
type Encoder struct {
	wrapped zapcore.Encoder
	// at is the node of the object being encoded (root at the top).
	at *node
}

// NewEncoder wraps enc, applying filters, keyed by path: an object's keys
// joined with ">", as in Caddy's filter encoder.
func NewEncoder(enc zapcore.Encoder, filters map[string]Filter) (*Encoder, error) {
	root, err := compile(filters)
	if err != nil {
		return nil, err
	}
	return &Encoder{wrapped: enc, at: root}, nil
}

// filter is the filter of field key here, if one applies to it.
func (e *Encoder) filter(key string) Filter {
	if n := e.at.child(key); n != nil {
		return n.filter
	}
	return nil
}

// AddObject writes an object: filtered whole, walked when something below
// it is filtered, or else handed to the wrapped encoder as it is.
func (e *Encoder) AddObject(key string, m zapcore.ObjectMarshaler) error {
	n := e.at.child(key)
	switch {
	case n == nil:
		return e.wrapped.AddObject(key, m)
	case n.filter != nil:
		n.filter.Filter(zap.Object(key, m)).AddTo(e.wrapped)
		return nil
	}
	if h, ok := m.(caddyhttp.LoggableHTTPHeader); ok {
		return e.wrapped.AddObject(key, headersAt{n: n, h: h})
	}
	return e.wrapped.AddObject(key, objectBelow{enc: &Encoder{wrapped: e.wrapped, at: n}, m: m})
}

// objectBelow marshals an object's fields through the encoder placed at
// its node, into the same wrapped encoder.
type objectBelow struct {
	enc *Encoder
	m   zapcore.ObjectMarshaler
}

func (o objectBelow) MarshalLogObject(zapcore.ObjectEncoder) error {
	return o.m.MarshalLogObject(o.enc)
}

// AddArray writes an array, filtered whole where a filter applies (the
// elements of an array are not walked, as in Caddy).
func (e *Encoder) AddArray(key string, m zapcore.ArrayMarshaler) error {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Array(key, m)).AddTo(e.wrapped)
		return nil
	}
	return e.wrapped.AddArray(key, m)
}

// AddString is the common case, kept free of boxing; a hashed string is
// written from the stack.
func (e *Encoder) AddString(key, value string) {
	if n := e.at.child(key); n != nil && n.filter != nil {
		switch n.is {
		case deleted:
		case hashed:
			h := hashHex(value)
			e.wrapped.AddByteString(key, h[:])
		default:
			n.filter.Filter(zap.String(key, value)).AddTo(e.wrapped)
		}
		return
	}
	e.wrapped.AddString(key, value)
}

// AddInt: a status, a size.
func (e *Encoder) AddInt(key string, value int) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Int(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddInt(key, value)
}

// AddInt64 is how zap adds zap.Int fields.
func (e *Encoder) AddInt64(key string, value int64) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Int64(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddInt64(key, value)
}

// AddFloat64: the duration, in the JSON encoder's seconds.
func (e *Encoder) AddFloat64(key string, value float64) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Float64(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddFloat64(key, value)
}

// AddDuration: the request's duration.
func (e *Encoder) AddDuration(key string, value time.Duration) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Duration(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddDuration(key, value)
}

// AddBool: a TLS connection's resumed flag.
func (e *Encoder) AddBool(key string, value bool) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Bool(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddBool(key, value)
}

// AddUint16: a TLS version and cipher suite.
func (e *Encoder) AddUint16(key string, value uint16) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Uint16(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUint16(key, value)
}

// The rest are rare in an access log; a filtered one is built as Caddy
// builds it, with zap.Any.

func (e *Encoder) AddBinary(key string, value []byte) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddBinary(key, value)
}

func (e *Encoder) AddByteString(key string, value []byte) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddByteString(key, value)
}

func (e *Encoder) AddComplex128(key string, value complex128) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddComplex128(key, value)
}

func (e *Encoder) AddComplex64(key string, value complex64) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddComplex64(key, value)
}

func (e *Encoder) AddFloat32(key string, value float32) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddFloat32(key, value)
}

func (e *Encoder) AddInt32(key string, value int32) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddInt32(key, value)
}

func (e *Encoder) AddInt16(key string, value int16) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddInt16(key, value)
}

func (e *Encoder) AddInt8(key string, value int8) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddInt8(key, value)
}

func (e *Encoder) AddTime(key string, value time.Time) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddTime(key, value)
}

func (e *Encoder) AddUint(key string, value uint) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUint(key, value)
}

func (e *Encoder) AddUint64(key string, value uint64) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUint64(key, value)
}

func (e *Encoder) AddUint32(key string, value uint32) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUint32(key, value)
}

func (e *Encoder) AddUint8(key string, value uint8) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUint8(key, value)
}

func (e *Encoder) AddUintptr(key string, value uintptr) {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return
	}
	e.wrapped.AddUintptr(key, value)
}

func (e *Encoder) AddReflected(key string, value any) error {
	if f := e.filter(key); f != nil {
		f.Filter(zap.Any(key, value)).AddTo(e.wrapped)
		return nil
	}
	return e.wrapped.AddReflected(key, value)
}

// OpenNamespace nests the fields that follow in the wrapped encoder; their
// paths do not change (as in Caddy).
func (e *Encoder) OpenNamespace(key string) {
	e.wrapped.OpenNamespace(key)
}

// Clone copies the encoder with a clone of the wrapped one.
func (e *Encoder) Clone() zapcore.Encoder {
	return &Encoder{wrapped: e.wrapped.Clone(), at: e.at}
}

// EncodeEntry adds fields to a clone of the wrapped encoder, through the
// filters, and has that clone write the entry.
func (e *Encoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	c := &Encoder{wrapped: e.wrapped.Clone(), at: e.at}
	for _, f := range fields {
		f.AddTo(c)
	}
	return c.wrapped.EncodeEntry(ent, nil)
}

var (
	_ zapcore.Encoder         = (*Encoder)(nil)
	_ zapcore.ObjectMarshaler = objectBelow{}
)
