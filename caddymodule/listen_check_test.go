//go:build linux

package caddymodule

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// reusePortConfig listens with SO_REUSEPORT, as Caddy does on Linux.
func reusePortConfig() net.ListenConfig {
	return net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, unix.SO_REUSEPORT, 1)
		}); err != nil {
			return err
		}
		return serr
	}}
}

// TestSharedListenersFromProc: the ports this process and another both
// listen on, and the other's pid, from a /proc tree (a fake one: the
// format of /proc/net/tcp, and fd links to sockets).
func TestSharedListenersFromProc(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "net"), 0o755)
	// Port 8443 (0x20FB): inodes 100 (ours) and 200 (pid 4242's); port
	// 8081 (0x1F91): ours only; port 5432 (0x1538): another's only; a
	// connected socket (state 01) on 8443 that is not a listener.
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 0100007F:20FB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1 0 100 0 0 10 0\n" +
		"   1: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 101 1 0 100 0 0 10 0\n" +
		"   2: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 300 1 0 100 0 0 10 0\n" +
		"   3: 0100007F:20FB 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 400 1 0 100 0 0 10 0\n"
	tcp6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000000000000000000000000000:20FB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 200 1 0 100 0 0 10 0\n"
	os.WriteFile(filepath.Join(root, "net", "tcp"), []byte(tcp), 0o644)
	os.WriteFile(filepath.Join(root, "net", "tcp6"), []byte(tcp6), 0o644)
	fds := func(dir string, inodes ...int) {
		os.MkdirAll(dir, 0o755)
		for i, ino := range inodes {
			os.Symlink("socket:["+strconv.Itoa(ino)+"]", filepath.Join(dir, strconv.Itoa(i+3)))
		}
	}
	fds(filepath.Join(root, "self", "fd"), 100, 101, 400)
	fds(filepath.Join(root, "4242", "fd"), 200)
	fds(filepath.Join(root, "77", "fd"), 300)
	got := sharedListeners(root)
	if len(got) != 1 || got[0].Port != 8443 || len(got[0].PIDs) != 1 || got[0].PIDs[0] != 4242 {
		t.Fatalf("shared %+v: want port 8443 with pid 4242 only", got)
	}
	if got[0].String() != "port 8443 (pid 4242)" {
		t.Fatalf("%q", got[0].String())
	}
}

// TestSharedListenersThisProcess: on this machine's /proc, a port this
// test process listens on with SO_REUSEPORT beside a child process's
// listener is found, with the child's pid; a port only this process
// listens on is not.
func TestSharedListenersThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	lc := reusePortConfig()
	l, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	alone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	port := l.Addr().(*net.TCPAddr).Port
	// A child that listens on the same port with SO_REUSEPORT: python3's
	// socket module (Debian's python3), the simplest other process.
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to play the other process")
	}
	cmd := exec.Command(py, "-c", `import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("ok", flush=True); time.sleep(30)`, strconv.Itoa(port))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	buf := make([]byte, 3)
	if _, err := out.Read(buf); err != nil || string(buf[:2]) != "ok" {
		t.Fatalf("the child did not listen: %v %q", err, buf)
	}
	var found *sharedPort
	for _, p := range sharedListeners("/proc") {
		if p.Port == alone.Addr().(*net.TCPAddr).Port {
			t.Fatalf("a port only this process listens on is reported: %+v", p)
		}
		if p.Port == port {
			found = &p
		}
	}
	if found == nil || len(found.PIDs) != 1 || found.PIDs[0] != cmd.Process.Pid {
		t.Fatalf("shared port %d: %+v, want the child's pid %d", port, found, cmd.Process.Pid)
	}
}
