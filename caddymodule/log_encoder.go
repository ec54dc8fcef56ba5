package caddymodule

import (
	"encoding/json"
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/logging"
	"go.uber.org/zap/zapcore"

	"github.com/obgw/obgw/accesslog"
)

func init() {
	caddy.RegisterModule(LogFilterEncoder{})
}

// LogFilterEncoder is the log format obgw_filter: Caddy's filter format
// (the same Caddyfile syntax, the same filter modules, the same lines),
// encoded without re-walking what no filter touches (package accesslog).
//
//	format obgw_filter {
//		wrap json
//		request>headers>Signature delete
//		request>headers>Psu-Id hash
//		...
//	}
//
// Unlike Caddy's filter format, the default wrapped format is always json
// (Caddy's switches to console on a terminal).
type LogFilterEncoder struct {
	// The format the filtered fields are written in (default json).
	WrappedRaw json.RawMessage `json:"wrap,omitempty" caddy:"namespace=caddy.logging.encoders inline_key=format"`
	// The filter of each field, keyed by its path (keys joined with ">").
	FieldsRaw map[string]json.RawMessage `json:"fields,omitempty" caddy:"namespace=caddy.logging.encoders.filter inline_key=filter"`

	*accesslog.Encoder `json:"-"`
}

// CaddyModule returns the Caddy module information.
func (LogFilterEncoder) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.logging.encoders.obgw_filter",
		New: func() caddy.Module { return new(LogFilterEncoder) },
	}
}

// UnmarshalCaddyfile reads the filter format's syntax, with Caddy's own
// parser.
func (e *LogFilterEncoder) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	var fe logging.FilterEncoder
	if err := fe.UnmarshalCaddyfile(d); err != nil {
		return err
	}
	e.WrappedRaw, e.FieldsRaw = fe.WrappedRaw, fe.FieldsRaw
	return nil
}

// Provision loads the wrapped format and the filters.
func (e *LogFilterEncoder) Provision(ctx caddy.Context) error {
	wrapped, err := wrappedFormat(ctx, e, e.WrappedRaw, new(logging.JSONEncoder))
	if err != nil {
		return fmt.Errorf("obgw_filter: %v", err)
	}
	filters := make(map[string]accesslog.Filter)
	if e.FieldsRaw != nil {
		vals, err := ctx.LoadModule(e, "FieldsRaw")
		if err != nil {
			return fmt.Errorf("obgw_filter: loading the field filters: %v", err)
		}
		for path, m := range vals.(map[string]any) {
			filters[path] = m.(logging.LogFieldFilter)
		}
	}
	enc, err := accesslog.NewEncoder(wrapped, filters)
	if err != nil {
		return fmt.Errorf("obgw_filter: %v", err)
	}
	e.Encoder = enc
	return nil
}

// wrappedFormat is the log format an encoder module wraps: the module in
// its field WrappedRaw (raw, as configured), or def, provisioned, when
// none is.
func wrappedFormat(ctx caddy.Context, m any, raw json.RawMessage, def interface {
	zapcore.Encoder
	caddy.Provisioner
}) (zapcore.Encoder, error) {
	if raw == nil {
		if err := def.Provision(ctx); err != nil {
			return nil, fmt.Errorf("the default format: %v", err)
		}
		return def, nil
	}
	v, err := ctx.LoadModule(m, "WrappedRaw")
	if err != nil {
		return nil, fmt.Errorf("loading the wrapped format: %v", err)
	}
	return v.(zapcore.Encoder), nil
}

var (
	_ zapcore.Encoder       = (*LogFilterEncoder)(nil)
	_ caddy.Provisioner     = (*LogFilterEncoder)(nil)
	_ caddyfile.Unmarshaler = (*LogFilterEncoder)(nil)
)
