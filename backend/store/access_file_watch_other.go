//go:build !linux

package store

import "errors"

// fileWatch is Linux's inotify watch (access_file_watch_linux.go);
// elsewhere there is none, and every lookup reads the data version.
type fileWatch struct{}

func watchFile(string) (*fileWatch, error) {
	return nil, errors.New("no file watch on this system")
}

func (*fileWatch) quiet() (bool, error) { return false, errors.New("no file watch on this system") }

func (*fileWatch) Close() error { return nil }
