package caddymodule

import (
	"fmt"
	"os"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// secretValue returns a configuration value that may hold a secret (the
// context key, a database or Redis URL with a password). The JSON
// configuration is served by the admin API and autosaved by Caddy, so a
// secret must not be in it: the value is read at provision time, from
// file when one is named (surrounding whitespace trimmed), else from value
// with its runtime placeholders expanded ({env.NAME}, {file./path}), as
// Caddy does for its own secrets. A value written into the configuration
// literally still works, and shows there.
func secretValue(option, value, file string) (string, error) {
	value = caddy.NewReplacer().ReplaceKnown(value, "")
	if file == "" {
		return value, nil
	}
	if value != "" {
		return "", fmt.Errorf("%s and %s_file are both set; use one", option, option)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s_file: %v", option, err)
	}
	return strings.TrimSpace(string(raw)), nil
}

// warnLiteralSecret warns when a secret is written into the configuration
// itself rather than read at provision time.
func warnLiteralSecret(logger *zap.Logger, option, value string) {
	if value != "" && !strings.Contains(value, "{") {
		logger.Warn(option+" is written into the configuration, where the admin API serves it and Caddy may autosave it; use {env.NAME} or "+option+"_file",
			zap.String("option", option))
	}
}
