package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The placeholders' pool: empty placeholder directories kept in the agent dir between runs,
// renamed into the workspace for a run and back after it, instead of a mkdir before the run
// and an rmdir after it. Removing a directory frees its block, and on an ext4 mounted with
// `discard` (Ubuntu's cloud images, this benchmark's VM) the free issues a synchronous discard:
// three rmdirs took 0.4–0.9 ms of every bash call, and the three mkdirs searched past the
// inodes recently freed. A rename frees nothing and allocates nothing.
//
// What keeps it exact:
//   - The pool is <agent dir>/.sandbox-placeholders, used only when the agent dir exists, is
//     read-only in the plan's sandbox (one of [Plan.Protected]) and lies on the same device
//     as every placeholder's parent: no sandboxed command of the plan can write a pool entry,
//     and a rename cannot cross devices. Otherwise mkdir and rmdir, as before.
//   - An entry is claimed only when it is an empty directory in the placeholder mode owned by
//     pigo's user (checked on the entry itself, opened without following a link), and by a
//     rename that replaces nothing (RENAME_NOREPLACE): EEXIST is mkdir's EEXIST (another
//     run's placeholder, or one made since the plan, which the tmpfs covers), ENOENT another
//     run's claim of the same entry (the next one is tried).
//   - After the run, under the parent's exclusive lock (as the rmdir was), a placeholder goes
//     back only when it is still an empty directory in the placeholder mode: one that became
//     non-empty during the run, or whose mode changed, is never moved or removed. The rename
//     and that check are two steps where rmdir was one, so the entry is checked again in the
//     pool (the same inode, still empty, same mode) and renamed back to its place when
//     something got in between; should its place have been taken meanwhile too, it is put
//     beside it as "<path>.pigo-kept-<time>", never left in the pool.
//   - The pool holds at most poolMax entries; past that a placeholder is removed as before.

const (
	poolName = ".sandbox-placeholders"
	poolMax  = 64
)

// choosePool sets [Plan.pool] when the plan's placeholders can come from the pool and go
// back to it (see above). Called by NewPlan with the memo still set.
func (pl *Plan) choosePool() {
	if len(pl.Placeholders) == 0 || pl.agentDir == "" {
		return
	}
	ad := pl.realPath(pl.agentDir)
	if !slices.Contains(pl.Protected, ad) {
		return
	}
	var st unix.Stat_t
	if unix.Stat(ad, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return
	}
	dev := st.Dev
	var seen []string
	for _, m := range pl.Placeholders {
		d := filepath.Dir(m)
		if slices.Contains(seen, d) {
			continue
		}
		seen = append(seen, d)
		if unix.Stat(d, &st) != nil || st.Dev != dev {
			return
		}
	}
	pl.pool = filepath.Join(ad, poolName)
}

// pool is one run's use of the placeholders' pool.
type pool struct {
	dir    string
	fd     int      // the pool directory, -1 when not open
	names  []string // entries listed at the run's start, not yet tried
	count  int      // entries in the pool as far as this run knows
	broken bool     // a rename failed otherwise than by a race: mkdir and rmdir from here on
}

// openPool opens and lists the pool dir; a missing pool is made at the first put.
func openPool(dir string) *pool {
	p := &pool{dir: dir, fd: -1}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if err != unix.ENOENT {
			p.broken = true
		}
		return p
	}
	p.fd = fd
	p.names, _ = dirNames(fd, -1)
	p.count = len(p.names)
	return p
}

// claim renames an entry of the pool to m. It reports whether m now exists (claimed, or made
// by someone else first); false leaves m to mkdir.
func (p *pool) claim(m string) bool {
	if p == nil {
		return false
	}
	for p.fd >= 0 && !p.broken && len(p.names) > 0 {
		name := p.names[0]
		if _, ok, _ := emptyPlaceholder(p.fd, name, true); !ok {
			p.names = p.names[1:] // not one pigo could have put there: left alone
			continue
		}
		switch err := unix.Renameat2(p.fd, name, unix.AT_FDCWD, m, unix.RENAME_NOREPLACE); err {
		case nil:
			p.names = p.names[1:]
			p.count--
			return true
		case unix.ENOENT: // another run claimed it
			p.names = p.names[1:]
			p.count--
		case unix.EEXIST:
			return true
		default:
			p.broken = true
		}
	}
	return false
}

// put moves the placeholder pl back to the pool and reports whether it did; false leaves pl to
// the rmdir path (which keeps what is not an empty placeholder: rmdir refuses a non-empty
// directory).
func (p *pool) put(pl string) bool {
	if p == nil || p.broken || p.count >= poolMax {
		return false
	}
	ino, ok, _ := emptyPlaceholder(unix.AT_FDCWD, pl, true)
	if !ok {
		return false
	}
	if p.fd < 0 {
		if err := unix.Mkdir(p.dir, 0o700); err != nil && err != unix.EEXIST {
			p.broken = true
			return false
		}
		fd, err := unix.Open(p.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			p.broken = true
			return false
		}
		p.fd = fd
	}
	for range 3 {
		name := entryName()
		switch err := unix.Renameat2(unix.AT_FDCWD, pl, p.fd, name, unix.RENAME_NOREPLACE); err {
		case nil:
			if testBetweenPut != nil {
				testBetweenPut(pl, filepath.Join(p.dir, name))
			}
			if got, ok, _ := emptyPlaceholder(p.fd, name, false); ok && got == ino {
				p.count++
				return true
			}
			// Something got in between the check and the rename: back to its place.
			if unix.Renameat2(p.fd, name, unix.AT_FDCWD, pl, unix.RENAME_NOREPLACE) != nil {
				aside := pl + ".pigo-kept-" + strconv.FormatInt(time.Now().UnixNano(), 10)
				_ = unix.Renameat2(p.fd, name, unix.AT_FDCWD, aside, unix.RENAME_NOREPLACE)
			}
			return true
		case unix.EEXIST: // a name left by an earlier pigo of the same pid
			continue
		default:
			p.broken = true
			return false
		}
	}
	return false
}

// testBetweenPut, when set, runs between put's rename and its check in the pool.
var testBetweenPut func(placeholder, entry string)

func (p *pool) close() {
	if p != nil && p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}

var entrySeq atomic.Uint64

// entryName is a pool entry's name unique within this process.
func entryName() string {
	return "p" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(entrySeq.Add(1), 10)
}

// emptyPlaceholder opens name under dirfd without following a link and reports its inode and
// whether it is an empty directory in the placeholder mode (and, with mine, owned by this
// process's user).
func emptyPlaceholder(dirfd int, name string, mine bool) (ino uint64, ok bool, err error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return 0, false, err
	}
	if st.Mode&(unix.S_IFMT|unix.S_ISVTX|0o777) != unix.S_IFDIR|unix.S_ISVTX|uint32(placeholderMode.Perm()) ||
		(mine && int(st.Uid) != os.Geteuid()) {
		return st.Ino, false, nil
	}
	names, err := dirNames(fd, 1)
	return st.Ino, err == nil && len(names) == 0, err
}

// dirNames lists up to max names of the open directory fd (all with max < 0), without "." and
// "..".
func dirNames(fd int, max int) ([]string, error) {
	var buf [2048]byte
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err != nil || n <= 0 {
			return names, err
		}
		_, _, names = unix.ParseDirent(buf[:n], max, names)
		if max >= 0 && len(names) >= max {
			return names, nil
		}
	}
}
