package fileio

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
)

// DirFS is a file system of the files under a directory, opened as Files
// on its Rings: an fs.FS with ReadFile, ReadDir, Stat and Sub, whose
// files implement io.ReaderAt and io.Seeker, so http.FS(d) serves them
// with ranges. Names are resolved inside the directory through an
// os.Root: neither ".." nor a symbolic link leads out of it (a link that
// points out fails to open, where os.DirFS would follow it). The
// directory is opened on first use and held until Close.
type DirFS struct {
	r    *Rings
	dir  string
	once sync.Once
	root *os.Root
	err  error
}

// FS returns the file system of the files under dir, on Default's rings.
func FS(dir string) *DirFS { return Default().FS(dir) }

// FS returns the file system of the files under dir, on r.
func (r *Rings) FS(dir string) *DirFS { return &DirFS{r: r, dir: dir} }

var (
	_ fs.FS         = (*DirFS)(nil)
	_ fs.ReadFileFS = (*DirFS)(nil)
	_ fs.ReadDirFS  = (*DirFS)(nil)
	_ fs.StatFS     = (*DirFS)(nil)
	_ fs.SubFS      = (*DirFS)(nil)
)

// openRoot opens the directory once.
func (d *DirFS) openRoot(op, name string) (*os.Root, error) {
	d.once.Do(func() {
		if d.root == nil {
			d.root, d.err = os.OpenRoot(d.dir)
		}
	})
	if d.err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: d.err}
	}
	return d.root, nil
}

// check refuses a name fs.ValidPath refuses, as fs.FS requires.
func check(op, name string) error {
	if !fs.ValidPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

// Open opens name for reading; a directory's File reads its entries.
func (d *DirFS) Open(name string) (fs.File, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// OpenFile is Open returning the *File.
func (d *DirFS) OpenFile(name string) (*File, error) {
	if err := check("open", name); err != nil {
		return nil, err
	}
	root, err := d.openRoot("open", name)
	if err != nil {
		return nil, err
	}
	of, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	return d.r.NewFile(of), nil
}

// ReadFile returns the contents of name, read through the rings.
func (d *DirFS) ReadFile(name string) ([]byte, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, rename(err, "readfile")
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: errors.New("is a directory")}
	}
	data, err := readAll(f)
	if err != nil {
		return nil, rename(err, "readfile")
	}
	return data, nil
}

// ReadDir returns the entries of the directory name, sorted by name.
func (d *DirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, rename(err, "readdir")
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Stat returns name's FileInfo (following a last symbolic link inside).
func (d *DirFS) Stat(name string) (fs.FileInfo, error) {
	if err := check("stat", name); err != nil {
		return nil, err
	}
	root, err := d.openRoot("stat", name)
	if err != nil {
		return nil, err
	}
	return root.Stat(name)
}

// Sub returns the file system of the directory dir inside d; it holds a
// directory of its own (close it too).
func (d *DirFS) Sub(dir string) (fs.FS, error) {
	if err := check("sub", dir); err != nil {
		return nil, err
	}
	if dir == "." {
		return d, nil
	}
	root, err := d.openRoot("sub", dir)
	if err != nil {
		return nil, err
	}
	sub, err := root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &DirFS{r: d.r, dir: path.Join(d.dir, dir), root: sub}
	s.once.Do(func() {})
	return s, nil
}

// Close closes the directory the DirFS holds; the Files opened from it
// stay open.
func (d *DirFS) Close() error {
	d.once.Do(func() { d.err = os.ErrClosed })
	if d.root == nil {
		return nil
	}
	return d.root.Close()
}

// rename gives a *fs.PathError the operation name the fs interface's
// method has.
func rename(err error, op string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: pe.Path, Err: pe.Err}
	}
	return err
}
