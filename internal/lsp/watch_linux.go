//go:build linux

package lsp

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watchTree watches root and every folder under it that ignored does not leave out, with one
// inotify instance, and reports each change through add. New folders are watched as they
// appear (and what is already in them reported as created). stop ends the watch.
func watchTree(root string, ignored func(string) bool, add func(path string, kind int)) (stop func(), err error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "inotify")
	var mu sync.Mutex
	dirs := map[int]string{}
	const mask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ONLYDIR
	var addDir func(dir string, report bool)
	addDir = func(dir string, report bool) {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if p != root && ignored(p) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() {
				if report {
					add(p, FileCreated)
				}
				return nil
			}
			mu.Lock()
			n := len(dirs)
			mu.Unlock()
			if n >= maxWatchedDirs {
				return filepath.SkipAll
			}
			wd, err := unix.InotifyAddWatch(fd, p, mask)
			if err == nil {
				mu.Lock()
				dirs[wd] = p
				mu.Unlock()
			}
			return nil
		})
	}
	addDir(root, false)
	if len(dirs) == 0 {
		f.Close()
		return nil, errors.New("lsp watch: nothing to watch")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if err != nil {
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				nameLen := int(ev.Len)
				name := ""
				if nameLen > 0 && off+unix.SizeofInotifyEvent+nameLen <= n {
					b := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
					for i, c := range b {
						if c == 0 {
							b = b[:i]
							break
						}
					}
					name = string(b)
				}
				off += unix.SizeofInotifyEvent + nameLen
				mu.Lock()
				dir, ok := dirs[int(ev.Wd)]
				if ev.Mask&unix.IN_IGNORED != 0 {
					delete(dirs, int(ev.Wd))
				}
				mu.Unlock()
				if !ok || name == "" {
					continue
				}
				p := filepath.Join(dir, name)
				isDir := ev.Mask&unix.IN_ISDIR != 0
				switch {
				case ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
					if isDir {
						if !ignored(p) {
							addDir(p, true)
						}
					} else {
						add(p, FileCreated)
					}
				case ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0:
					if !isDir {
						add(p, FileDeleted)
					}
				case ev.Mask&(unix.IN_MODIFY|unix.IN_CLOSE_WRITE) != 0:
					if !isDir {
						add(p, FileChanged)
					}
				}
			}
		}
	}()
	return func() { f.Close(); <-done }, nil
}
