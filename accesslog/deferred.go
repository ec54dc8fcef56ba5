package accesslog

import (
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// Deferred is a zapcore.Encoder that keeps the fields a logger's With
// gives it and encodes them, through the encoder it wraps, only with an
// entry it writes. Its lines are the wrapped encoder's, byte for byte.
//
// Why: every request hands its fields (Caddy's LoggableHTTPRequest: the
// request line, every header, TLS) to each log whose filters might take a
// line of the http module, and zap encodes them at once, into every such
// log, before the log's filter says whether it takes the line. Caddy's
// own log excludes the access log's lines, so it encoded the whole request
// of every answer and dropped it: about 4% of the gateway's CPU on a
// signed read. With Deferred it keeps the field (a pointer and a key) and
// encodes it only for a line it writes.
//
// Deferring changes nothing a line shows: Caddy hands a log a clone of
// the request taken before any handler runs, and the wrapped encoder's
// methods are called in the same order either way (each method kept is the
// method replayed, through a Field whose AddTo calls it; AddInt and
// AddUint come back as AddInt64 and AddUint64, which zap's encoders write
// alike). TestDeferredLinesAreTheWrappeds holds it to that.
type Deferred struct {
	wrapped zapcore.Encoder
	fields  []zapcore.Field
}

// NewDeferred wraps enc, which encodes the lines.
func NewDeferred(enc zapcore.Encoder) *Deferred { return &Deferred{wrapped: enc} }

// Clone returns a Deferred with the fields kept so far; fields added to
// either later are its own.
func (d *Deferred) Clone() zapcore.Encoder {
	return &Deferred{wrapped: d.wrapped, fields: d.fields[:len(d.fields):len(d.fields)]}
}

// EncodeEntry encodes the kept fields into a clone of the wrapped encoder,
// then the entry with its own fields.
func (d *Deferred) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	enc := d.wrapped
	if len(d.fields) > 0 {
		enc = d.wrapped.Clone()
		for _, f := range d.fields {
			f.AddTo(enc)
		}
	}
	return enc.EncodeEntry(ent, fields)
}

func (d *Deferred) keep(f zapcore.Field) { d.fields = append(d.fields, f) }

// The methods of zapcore.ObjectEncoder keep their field. Errors of
// AddArray, AddObject and AddReflected come when the field is encoded:
// zap's Field.AddTo writes them then as the key's "Error" field, as it
// would have at once.

func (d *Deferred) AddArray(key string, v zapcore.ArrayMarshaler) error {
	d.keep(zap.Array(key, v))
	return nil
}
func (d *Deferred) AddObject(key string, v zapcore.ObjectMarshaler) error {
	d.keep(zap.Object(key, v))
	return nil
}
func (d *Deferred) AddReflected(key string, v any) error {
	d.keep(zap.Reflect(key, v))
	return nil
}
func (d *Deferred) AddBinary(key string, v []byte)          { d.keep(zap.Binary(key, v)) }
func (d *Deferred) AddByteString(key string, v []byte)      { d.keep(zap.ByteString(key, v)) }
func (d *Deferred) AddBool(key string, v bool)              { d.keep(zap.Bool(key, v)) }
func (d *Deferred) AddComplex128(key string, v complex128)  { d.keep(zap.Complex128(key, v)) }
func (d *Deferred) AddComplex64(key string, v complex64)    { d.keep(zap.Complex64(key, v)) }
func (d *Deferred) AddDuration(key string, v time.Duration) { d.keep(zap.Duration(key, v)) }
func (d *Deferred) AddFloat64(key string, v float64)        { d.keep(zap.Float64(key, v)) }
func (d *Deferred) AddFloat32(key string, v float32)        { d.keep(zap.Float32(key, v)) }
func (d *Deferred) AddInt(key string, v int)                { d.keep(zap.Int(key, v)) }
func (d *Deferred) AddInt64(key string, v int64)            { d.keep(zap.Int64(key, v)) }
func (d *Deferred) AddInt32(key string, v int32)            { d.keep(zap.Int32(key, v)) }
func (d *Deferred) AddInt16(key string, v int16)            { d.keep(zap.Int16(key, v)) }
func (d *Deferred) AddInt8(key string, v int8)              { d.keep(zap.Int8(key, v)) }
func (d *Deferred) AddString(key, v string)                 { d.keep(zap.String(key, v)) }
func (d *Deferred) AddTime(key string, v time.Time)         { d.keep(zap.Time(key, v)) }
func (d *Deferred) AddUint(key string, v uint)              { d.keep(zap.Uint(key, v)) }
func (d *Deferred) AddUint64(key string, v uint64)          { d.keep(zap.Uint64(key, v)) }
func (d *Deferred) AddUint32(key string, v uint32)          { d.keep(zap.Uint32(key, v)) }
func (d *Deferred) AddUint16(key string, v uint16)          { d.keep(zap.Uint16(key, v)) }
func (d *Deferred) AddUint8(key string, v uint8)            { d.keep(zap.Uint8(key, v)) }
func (d *Deferred) AddUintptr(key string, v uintptr)        { d.keep(zap.Uintptr(key, v)) }
func (d *Deferred) OpenNamespace(key string)                { d.keep(zap.Namespace(key)) }

var _ zapcore.Encoder = (*Deferred)(nil)
