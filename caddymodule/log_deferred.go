package caddymodule

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap/zapcore"
	"golang.org/x/term"

	"github.com/obgw/obgw/accesslog"
)

func init() {
	caddy.RegisterModule(LogDeferredEncoder{})
}

// LogDeferredEncoder is the log format obgw_deferred: the lines of the
// format it wraps, with the fields a logger is given encoded only for the
// lines the log writes (accesslog.Deferred). It is for Caddy's own log
// (`log default`), which is handed every request's fields and writes
// almost none of them:
//
//	log default {
//		format obgw_deferred [{
//			wrap <format> ...
//		}]
//	}
//
// Without wrap it writes what Caddy's default log writes to standard
// error: Caddy's console format when standard error is a terminal, its
// json format otherwise.
type LogDeferredEncoder struct {
	// The format the lines are written in.
	WrappedRaw json.RawMessage `json:"wrap,omitempty" caddy:"namespace=caddy.logging.encoders inline_key=format"`

	*accesslog.Deferred `json:"-"`
}

// CaddyModule returns the Caddy module information.
func (LogDeferredEncoder) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.encoders.obgw_deferred",
		New: func() caddy.Module { return new(LogDeferredEncoder) },
	}
}

// UnmarshalCaddyfile reads
//
//	obgw_deferred [{
//		wrap <format> ...
//	}]
func (e *LogDeferredEncoder) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the format's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		if d.Val() != "wrap" {
			return d.Errf("obgw_deferred: unknown subdirective %q (only wrap)", d.Val())
		}
		if e.WrappedRaw != nil {
			return d.Err("obgw_deferred: wrap given twice")
		}
		if !d.NextArg() {
			return d.ArgErr()
		}
		name := d.Val()
		unm, err := caddyfile.UnmarshalModule(d, "caddy.logging.encoders."+name)
		if err != nil {
			return err
		}
		if _, ok := unm.(zapcore.Encoder); !ok {
			return d.Errf("obgw_deferred: %s is not a log format", name)
		}
		e.WrappedRaw = caddyconfig.JSONModuleObject(unm, "format", name, nil)
	}
	return nil
}

// Provision loads the wrapped format.
func (e *LogDeferredEncoder) Provision(ctx caddy.Context) error {
	var def interface {
		zapcore.Encoder
		caddy.Provisioner
	} = new(logging.JSONEncoder)
	if term.IsTerminal(int(os.Stderr.Fd())) {
		def = new(logging.ConsoleEncoder)
	}
	wrapped, err := wrappedFormat(ctx, e, e.WrappedRaw, def)
	if err != nil {
		return fmt.Errorf("obgw_deferred: %v", err)
	}
	e.Deferred = accesslog.NewDeferred(wrapped)
	return nil
}

var (
	_ zapcore.Encoder       = (*LogDeferredEncoder)(nil)
	_ caddy.Provisioner     = (*LogDeferredEncoder)(nil)
	_ caddyfile.Unmarshaler = (*LogDeferredEncoder)(nil)
)
