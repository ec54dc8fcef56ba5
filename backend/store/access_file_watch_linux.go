//go:build linux

package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fileWatch tells whether a SQLite file may have changed since it was
// last asked, without reading the file: an inotify watch on its directory.
//
// In WAL mode every commit, by any process on this kernel, writes its
// pages to the -wal file with write(2) before the transaction is visible
// to a reader, and a checkpoint or a restore writes, truncates, creates
// or renames the database file or its -wal. The kernel queues the watch's
// event inside that system call, before it returns to the writer. So when
// the queue holds no event for the file, no commit has begun writing to
// it since the queue was last drained. The event comes before the commit
// is visible, so a drain that finds one may run ahead of that commit:
// sqliteDataVersion keeps a version only once it has also waited out the
// writer (settled). (Writes to the -shm index are made through shared
// memory and raise no event; they follow a write to the -wal, or change
// nothing a reader sees.)
//
// Writes from another machine (a network file system) raise no event
// here; SQLite's WAL mode cannot share a file across machines either.
type fileWatch struct {
	fd   int
	base []byte // the database file's name; its -wal, -shm and -journal share it as a prefix
	buf  [4096]byte
}

// watchedEvents are the changes of a directory entry that may change a
// database file's content: a write or truncation, a file created,
// removed or renamed.
const watchedEvents = unix.IN_MODIFY | unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF

// watchFile watches the directory of the database file at path. It fails
// where the watch could not be trusted: the path leads through a symbolic
// link (SQLite would put the -wal beside the link's target), or the
// kernel refuses another inotify instance (fs.inotify.max_user_instances).
func watchFile(path string) (*fileWatch, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	if real != abs {
		return nil, errors.New("the database path leads through a symbolic link")
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("inotify_init1", err)
	}
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(abs), watchedEvents); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("inotify_add_watch", err)
	}
	return &fileWatch{fd: fd, base: []byte(filepath.Base(abs))}, nil
}

// quiet drains the events queued since the last call and reports whether
// none of them may concern the database file. An error means the watch
// can no longer be trusted (the directory itself was removed or moved,
// or the queue cannot be read): the caller stops using it.
func (w *fileWatch) quiet() (bool, error) {
	quiet := true
	for {
		n, err := unix.Read(w.fd, w.buf[:])
		switch {
		case err == unix.EAGAIN:
			return quiet, nil
		case err == unix.EINTR:
			continue
		case err != nil:
			return false, os.NewSyscallError("read inotify", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			name := w.buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+int(ev.Len))]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED) != 0 {
				return false, errors.New("the database's directory was removed or moved")
			}
			// The name is padded with NULs.
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 || bytes.HasPrefix(name, w.base) {
				quiet = false
			}
		}
	}
}

func (w *fileWatch) Close() error {
	return unix.Close(w.fd)
}
