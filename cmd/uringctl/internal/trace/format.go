package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// field is one field of a tracepoint's entry, as its format file gives it.
type field struct {
	Name   string
	Type   string
	Offset int
	Size   int
	Signed bool
}

// format is the parsed format file of one tracepoint.
type format struct {
	Event  string
	ID     int
	Fields map[string]field
	// byUserData keys a request by its ring and user_data instead of its
	// request pointer: io_uring_complete has no req field before 5.19, so
	// every program of that kernel must use the other key.
	byUserData bool
}

// parseFormat reads a tracefs events/GROUP/NAME/format file. Lines it does not
// know are ignored so that new kernels with extra lines still parse.
func parseFormat(r io.Reader) (*format, error) {
	f := &format{Fields: map[string]field{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "name:"):
			f.Event = strings.TrimSpace(strings.TrimPrefix(line, "name:"))
		case strings.HasPrefix(line, "ID:"):
			id, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ID:")))
			if err != nil {
				return nil, fmt.Errorf("trace: format: bad ID line %q", line)
			}
			f.ID = id
		case strings.HasPrefix(line, "field:"):
			fl, err := parseField(line)
			if err != nil {
				return nil, err
			}
			f.Fields[fl.Name] = fl
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: format: %w", err)
	}
	if len(f.Fields) == 0 {
		return nil, fmt.Errorf("trace: format %q: no fields", f.Event)
	}
	return f, nil
}

// parseField parses "field:TYPE NAME;\toffset:N;\tsize:S;\tsigned:X;".
func parseField(line string) (field, error) {
	var fl field
	parts := strings.Split(line, ";")
	seen := 0
	for _, p := range parts {
		k, v, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			continue
		}
		switch k {
		case "field":
			decl := strings.TrimSpace(v)
			i := strings.LastIndexAny(decl, " \t*")
			if i < 0 || i == len(decl)-1 {
				return fl, fmt.Errorf("trace: format: bad field declaration %q", decl)
			}
			fl.Name = decl[i+1:]
			fl.Type = strings.TrimSpace(decl[:i+1])
			if j := strings.IndexByte(fl.Name, '['); j >= 0 { // "char comm[16]"
				fl.Type += " " + fl.Name[j:]
				fl.Name = fl.Name[:j]
			}
			seen |= 1
		case "offset", "size", "signed":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fl, fmt.Errorf("trace: format: bad %s in %q", k, line)
			}
			switch k {
			case "offset":
				fl.Offset, seen = n, seen|2
			case "size":
				fl.Size, seen = n, seen|4
			case "signed":
				fl.Signed = n != 0
			}
		}
	}
	if seen != 7 {
		return fl, fmt.Errorf("trace: format: incomplete field line %q", line)
	}
	return fl, nil
}

// need returns the named field, checking that it is an integer or pointer
// of a size a BPF load can read (1, 2, 4 or 8 bytes) at an aligned offset.
func (f *format) need(name string, sizes ...int) (field, error) {
	fl, ok := f.Fields[name]
	if !ok {
		return fl, fmt.Errorf("trace: tracepoint %s has no field %q", f.Event, name)
	}
	okSize := false
	for _, s := range sizes {
		okSize = okSize || fl.Size == s
	}
	if !okSize || fl.Offset%fl.Size != 0 || fl.Offset > 0x7fff {
		return fl, fmt.Errorf("trace: tracepoint %s: field %s has size %d at offset %d, want one of %v, aligned",
			f.Event, name, fl.Size, fl.Offset, sizes)
	}
	return fl, nil
}
