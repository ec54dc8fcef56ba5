package caddymodule

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Caddy opens its listeners with SO_REUSEPORT on Linux, so a second obgw
// started on a port another process already serves (a `bin/obgw run` or
// `reload` with another environment, say) binds beside it without an
// error, and the kernel splits the TPPs' connections between the two.
// sharedListeners finds that: the TCP ports this process listens on that
// another process listens on too. It reads /proc (Linux); elsewhere it
// finds nothing.

// sharedPort is a port this process listens on that others do too.
type sharedPort struct {
	Port int
	// PIDs are the other processes listening on it, where /proc shows
	// them (all of them for root).
	PIDs []int
}

func (p sharedPort) String() string {
	if len(p.PIDs) == 0 {
		return fmt.Sprintf("port %d (by a process this user cannot see)", p.Port)
	}
	return fmt.Sprintf("port %d (pid %s)", p.Port, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(p.PIDs)), ", "), "[]"))
}

// sharedListeners returns the ports this process and another both listen
// on, reading /proc under root (normally "/proc").
func sharedListeners(root string) []sharedPort {
	listening := map[int][]uint64{} // port → inodes of the sockets listening on it
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		readListening(filepath.Join(root, f), listening)
	}
	mine := socketInodes(filepath.Join(root, "self", "fd"))
	var out []sharedPort
	for port, inodes := range listening {
		var ours, others []uint64
		for _, ino := range inodes {
			if mine[ino] {
				ours = append(ours, ino)
			} else {
				others = append(others, ino)
			}
		}
		if len(ours) == 0 || len(others) == 0 {
			continue
		}
		out = append(out, sharedPort{Port: port, PIDs: owners(root, others)})
	}
	slices.SortFunc(out, func(a, b sharedPort) int { return a.Port - b.Port })
	return out
}

// readListening adds the listening sockets of a /proc/net/tcp{,6} table.
func readListening(file string, into map[int][]uint64) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != "0A" { // TCP_LISTEN
			continue
		}
		_, portHex, ok := strings.Cut(fields[1], ":")
		port, err1 := strconv.ParseUint(portHex, 16, 16)
		ino, err2 := strconv.ParseUint(fields[9], 10, 64)
		if !ok || err1 != nil || err2 != nil || ino == 0 {
			continue
		}
		into[int(port)] = append(into[int(port)], ino)
	}
}

// socketInodes returns the inodes of the sockets among a process's fds.
func socketInodes(fdDir string) map[uint64]bool {
	out := map[uint64]bool{}
	entries, err := os.ReadDir(fdDir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil {
			continue
		}
		if s, ok := strings.CutPrefix(target, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out[ino] = true
			}
		}
	}
	return out
}

// owners returns the pids of the processes holding any of the sockets.
func owners(root string, inodes []uint64) []int {
	procs, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		held := socketInodes(filepath.Join(root, p.Name(), "fd"))
		for _, ino := range inodes {
			if held[ino] {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
