package accesslog

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// fixedClock stamps every entry with one time, so that two loggers write
// comparable lines.
type fixedClock struct{}

func (fixedClock) Now() time.Time                         { return time.Date(2026, 11, 29, 7, 0, 0, 123456789, time.UTC) }
func (fixedClock) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// counted is an object that counts its encodings; fail makes it fail.
type counted struct {
	n    *int
	fail bool
}

func (c counted) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	*c.n++
	enc.AddString("method", "GET")
	enc.AddInt("n", 7)
	if err := enc.AddArray("headers", zapcore.ArrayMarshalerFunc(func(a zapcore.ArrayEncoder) error {
		a.AppendString("PSU-ID")
		return nil
	})); err != nil {
		return err
	}
	if c.fail {
		return errors.New("the object fails")
	}
	return nil
}

// withAll adds a field of every kind zap has to l, in two With calls and
// a namespace.
func withAll(l *zap.Logger, n *int) *zap.Logger {
	loc := time.FixedZone("CET", 3600)
	l = l.With(
		zap.Object("request", counted{n: n}),
		zap.Object("broken", counted{n: n, fail: true}),
		zap.Array("list", zapcore.ArrayMarshalerFunc(func(a zapcore.ArrayEncoder) error { a.AppendInt(1); return nil })),
		zap.Reflect("reflected", map[string]int{"a": 1}),
		zap.Reflect("unreflectable", make(chan int)),
		zap.Binary("binary", []byte{0, 1, 2}),
		zap.ByteString("bytes", []byte("b\"q")),
		zap.Bool("yes", true), zap.Bool("no", false),
		zap.Complex128("c128", complex(1, -2)), zap.Complex64("c64", complex(3, 4)),
		zap.Duration("took", 1500*time.Millisecond),
		zap.Float64("f64", math.Pi), zap.Float32("f32", 0.5), zap.Float64("nan", math.NaN()),
		zap.Int("int", -1), zap.Int64("i64", math.MinInt64), zap.Int32("i32", 32), zap.Int16("i16", 16), zap.Int8("i8", 8),
		zap.Uint("uint", 1), zap.Uint64("u64", math.MaxUint64), zap.Uint32("u32", 32), zap.Uint16("u16", 16), zap.Uint8("u8", 8),
		zap.Uintptr("ptr", 0xdead),
		zap.String("text", "é\n\"<>"),
		zap.Time("at", time.Date(2026, 1, 2, 3, 4, 5, 6, loc)),
		zap.Time("far", time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)),
		zap.Error(errors.New("an error")),
		zap.Stringer("stringer", time.Second),
	)
	return l.With(zap.Namespace("inner"), zap.String("after", "namespace"), zap.Object("again", counted{n: n}))
}

// TestDeferredLinesAreTheWrappeds: a Deferred writes the lines of the
// encoder it wraps, byte for byte, for fields of every kind given through
// With (nested, in a namespace, failing to encode), and entries with
// their own fields, in JSON and in the console format; and its clones are
// apart (a field given to one logger is not in its sibling's lines).
func TestDeferredLinesAreTheWrappeds(t *testing.T) {
	formats := map[string]func() zapcore.Encoder{
		"json":    func() zapcore.Encoder { return zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()) },
		"console": func() zapcore.Encoder { return zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()) },
	}
	for name, enc := range formats {
		t.Run(name, func(t *testing.T) {
			var eager, deferred bytes.Buffer
			var n1, n2 int
			write := func(enc zapcore.Encoder, w *bytes.Buffer, n *int) {
				l := zap.New(zapcore.NewCore(enc, zapcore.AddSync(w), zapcore.DebugLevel), zap.WithClock(fixedClock{})).Named("http.log.error")
				base := withAll(l, n)
				a := base.With(zap.String("sibling", "a"))
				b := base.With(zap.Int("sibling", 2))
				base.Info("handled request", zap.Int("status", 502), zap.Object("entry", counted{n: n}))
				a.Warn("a")
				b.Error("b", zap.Strings("list", []string{"x", "y"}))
				base.Debug("again")
			}
			write(enc(), &eager, &n1)
			write(NewDeferred(enc()), &deferred, &n2)
			if eager.String() != deferred.String() {
				t.Fatalf("the lines differ:\nwrapped:\n%s\ndeferred:\n%s", eager.String(), deferred.String())
			}
			if got := strings.Count(deferred.String(), "\n"); got != 4 {
				t.Fatalf("%d lines, want 4", got)
			}
			if strings.Contains(deferred.String(), `"sibling":"a"`) != strings.Contains(eager.String(), `"sibling":"a"`) {
				t.Fatal("sibling loggers share fields")
			}
		})
	}
}

// TestDeferredEncodesOnlyWrittenLines: an object given through With is
// encoded by the wrapped encoder at once, and by a Deferred only for each
// line written: never for lines the core drops.
func TestDeferredEncodesOnlyWrittenLines(t *testing.T) {
	for _, tc := range []struct {
		name     string
		enc      func() zapcore.Encoder
		atWith   int // encodings once With is called and lines below the level dropped
		atWrites int // and after two lines written
	}{
		{"wrapped", func() zapcore.Encoder { return zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()) }, 1, 1},
		{"deferred", func() zapcore.Encoder { return NewDeferred(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())) }, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n int
			var out bytes.Buffer
			l := zap.New(zapcore.NewCore(tc.enc(), zapcore.AddSync(&out), zapcore.InfoLevel))
			req := l.With(zap.Object("request", counted{n: &n}))
			for range 3 {
				req.Debug("dropped")
			}
			if n != tc.atWith {
				t.Fatalf("the request was encoded %d times before any line was written, want %d", n, tc.atWith)
			}
			req.Info("one")
			req.Info("two")
			if n != tc.atWrites {
				t.Fatalf("the request was encoded %d times for two lines, want %d", n, tc.atWrites)
			}
			if got := strings.Count(out.String(), `"request":{"method":"GET"`); got != 2 {
				t.Fatalf("%d lines carry the request, want 2:\n%s", got, out.String())
			}
		})
	}
}
