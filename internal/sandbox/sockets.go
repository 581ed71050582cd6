package sandbox

import (
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// tmpSocketPrefixes name the per-user socket directories made in /tmp (tmux, ssh-agent,
// dbus, screen).
var tmpSocketPrefixes = []string{"tmux-", "ssh-", "dbus-", "screen-"}

// tmpListing is the last listing of /tmp's socket directories, and /tmp's identity and
// times when it began. A sandboxed command's plan lists /tmp (every name: on an ext4 /tmp
// of 1,200 names that was ~1 ms of the 4-request session, on its path); while /tmp is the
// same directory with the same modification and change times, no name was added, removed
// or renamed since, and the listing is what a new one would give.
//
// The times prove it only when any change after the listing began must carry a later time:
// the kernel stamps a directory's change with its coarse real-time clock (or a finer time,
// never an earlier one), so a change after the listing began is stamped at or after the
// coarse clock read before it. The listing is kept only when /tmp's times were strictly
// earlier than that reading, less a margin (tickMargin); a change in the same tick as the
// listing makes it a listing of its own, used once. And only on local filesystems that keep
// nanoseconds (a network filesystem's times come from elsewhere and may be cached; FAT's
// and old ext4 inodes' whole seconds could stamp a later change with an earlier time).
type tmpListing struct {
	dir   string // "/tmp" (a test's own directory in tests)
	mu    sync.Mutex
	valid bool
	dev   uint64
	ino   uint64
	mtime unix.Timespec
	ctime unix.Timespec
	names []string // "DIR/NAME" of the names with a socket directory's prefix
}

var tmpSockets = tmpListing{dir: "/tmp"}

// tickMargin is how much earlier than the listing /tmp's last change must be: more than a
// scheduler tick (1–10 ms) of the coarse clock.
const tickMargin = 20 * time.Millisecond

// timedFilesystems are the local filesystems whose directory times are the kernel's clock in
// nanoseconds: ext4 (with the 256-byte inodes mkfs makes), tmpfs, xfs, btrfs.
var timedFilesystems = []int64{unix.EXT4_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC}

// tmpSocketDirs returns "/tmp/NAME" for each entry of /tmp whose name starts with a socket
// directory's prefix, unsorted: the kept listing while /tmp has not changed, else a new one.
func tmpSocketDirs() []string {
	return tmpSockets.dirs()
}

// dirs is the kept listing while it holds, else a new one.
func (c *tmpListing) dirs() []string {
	if dirs, ok := c.current(); ok {
		return dirs
	}
	return c.list()
}

// current returns the kept listing when the directory is the one it listed, unchanged since.
func (c *tmpListing) current() ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.valid {
		return nil, false
	}
	var st unix.Stat_t
	if unix.Stat(c.dir, &st) != nil || st.Dev != c.dev || st.Ino != c.ino || st.Mtim != c.mtime || st.Ctim != c.ctime {
		return nil, false
	}
	return slices.Clone(c.names), true
}

// list lists the directory and keeps the listing when its times prove it (see tmpListing).
func (c *tmpListing) list() []string {
	dir := c.dir
	var start unix.Timespec
	startErr := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &start)
	d, err := os.Open(dir)
	if err != nil {
		c.forget()
		return nil
	}
	defer d.Close()
	var st unix.Stat_t
	var fs unix.Statfs_t
	statErr := startErr
	if rc, err := d.SyscallConn(); err != nil {
		statErr = err
	} else if err := rc.Control(func(fd uintptr) {
		if statErr == nil {
			statErr = unix.Fstat(int(fd), &st)
		}
		if statErr == nil {
			statErr = unix.Fstatfs(int(fd), &fs)
		}
	}); err != nil {
		statErr = err
	}
	names, readErr := d.Readdirnames(-1)
	var dirs []string
	for _, n := range names {
		for _, pre := range tmpSocketPrefixes {
			if strings.HasPrefix(n, pre) {
				dirs = append(dirs, dir+"/"+n)
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.valid = statErr == nil && readErr == nil && provenBefore(&st, &fs, start)
	c.dev, c.ino, c.mtime, c.ctime = st.Dev, st.Ino, st.Mtim, st.Ctim
	c.names = slices.Clone(dirs)
	return dirs
}

// forget drops the kept listing.
func (c *tmpListing) forget() {
	c.mu.Lock()
	c.valid = false
	c.mu.Unlock()
}

// provenBefore reports whether the directory's times (st, on filesystem fs) are enough to
// tell a later change from the state listed at start (see tmpListing).
func provenBefore(st *unix.Stat_t, fs *unix.Statfs_t, start unix.Timespec) bool {
	if !slices.Contains(timedFilesystems, int64(fs.Type)) || st.Mtim.Nsec == 0 || st.Ctim.Nsec == 0 {
		return false
	}
	limit := start.Nano() - tickMargin.Nanoseconds()
	return st.Mtim.Nano() < limit && st.Ctim.Nano() < limit
}

// Warm makes ahead, off a first sandboxed command's path, what it would otherwise make on it
// under policy p: the listing of /tmp's socket directories (kept while /tmp is unchanged),
// the probe of the pids hierarchy (once a process), the command's own pids cgroup (when none
// is waiting; [DropAhead] removes it if no command takes it) and os/exec's check that pidfds
// work (once a process: a child started and reaped). Each is what the command would do itself,
// behind the same once or check; a command that comes first does it and Warm finds it done.
// Call it on a goroutine of its own when a session that may run commands starts: the model's
// first reply takes longer than all of it.
func Warm(p Policy) {
	if !p.Sandboxed() {
		return
	}
	if p.NetMode != NetAllowAll {
		tmpSocketDirs()
	}
	makeAheadCgroup()
	if proc, err := os.FindProcess(os.Getpid()); err == nil {
		proc.Release()
	}
}
