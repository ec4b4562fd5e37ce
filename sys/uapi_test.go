package sys

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUAPIHeader compares this package with a real uapi header: every
// constant and enum member of include/uapi/linux/io_uring.h (and of the
// io_uring/*.h next to it) must have a Go constant, named in its line
// comment (// IORING_X [release]), with the same value; every Go constant
// whose C name the header lacks must carry a release newer than the
// header's; every struct must have a Go type whose doc says "T is struct
// c_name", with the same size, alignment and field offsets (each C member
// named in a Go field's line comment). Fields, constants and types newer
// than the header are told apart by their [release] marks.
//
// The header is $URING_UAPI_HEADER, of Linux $URING_UAPI_VERSION (.ci/uapi.sh
// fetches the newest linux-libc-dev the Debian archive has and sets both),
// or else the host's /usr/include/linux/io_uring.h, whose release is read
// from dpkg's record of linux-libc-dev.
func TestUAPIHeader(t *testing.T) {
	path, release := uapiHeader(t)
	h, err := readUAPI(path)
	require.NoError(t, err, "reading %s", path)
	g := loadGoABI(t)
	t.Logf("sys against %s (Linux %s: %s): %d constants, %d structs", path, release, strings.Join(h.files, ", "), len(h.consts), len(h.structs))

	t.Run("constants", func(t *testing.T) { checkUAPIConstants(t, h, g, release) })
	t.Run("structs", func(t *testing.T) { checkUAPIStructs(t, h, g, release) })
}

// uapiHeader finds the header to check and the release it is from.
func uapiHeader(t *testing.T) (path, release string) {
	path = os.Getenv("URING_UAPI_HEADER")
	release = os.Getenv("URING_UAPI_VERSION")
	if path == "" {
		path = "/usr/include/linux/io_uring.h"
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no uapi header here (%v): install linux-libc-dev, or run bash .ci/uapi.sh, "+
				"or set URING_UAPI_HEADER=.../linux/io_uring.h and URING_UAPI_VERSION=x.y", err)
		}
		if release == "" {
			v := dpkgVersion("linux-libc-dev")
			if v == "" {
				t.Fatalf("%s: cannot tell which Linux release it is from (no linux-libc-dev in dpkg's status): set URING_UAPI_VERSION=x.y", path)
			}
			release, _ = kernelRelease(v)
		}
	}
	if release == "" {
		t.Fatalf("URING_UAPI_HEADER=%s needs URING_UAPI_VERSION=x.y, the Linux release of that header", path)
	}
	r, err := kernelRelease(release)
	require.NoError(t, err, "URING_UAPI_VERSION")
	return path, r
}

// uapiExceptions are C names with no Go constant, each with the reason.
var uapiExceptions = map[string]string{
	"IORING_URING_CMD_MASK": "the URING_CMD flags the kernel build knows, a value that grows with releases " +
		"(FIXED alone before 6.18): not an ABI value; UringCmdFixed and UringCmdMultishot are",
}

// uapiOtherHeaders are C names of sys's constants that come from uapi
// headers other than io_uring's, which this check does not read (their
// values have tests of their own): the header each is from.
var uapiOtherHeaders = map[string]string{
	"BLOCK_URING_CMD_DISCARD":        "linux/blkdev.h",
	"BLOCK_URING_CMD_ZONE_RESET_ALL": "linux/blkdev.h",
}

// uapiMarkers are enum ends that count members: their value changes with
// the release. The Go constant's [release] is the release its value is
// from: a header at least that new must agree; an older one has a
// smaller value.
var uapiMarkers = map[string]bool{
	"IORING_OP_LAST": true, "IORING_REGISTER_LAST": true,
	"IORING_RESTRICTION_LAST": true, "IORING_MOCK_FEAT_END": true,
}

// atLeast reports whether release a is b or newer.
func atLeast(a, b string) bool { return !releaseAfter(b, a) }

func checkUAPIConstants(t *testing.T, h *cHeader, g *goABI, release string) {
	var errs, notes []string
	for _, name := range h.order {
		c := h.consts[name]
		if _, ok := uapiExceptions[name]; ok {
			continue
		}
		if strings.HasPrefix(name, "__") {
			continue // __ZCRX_CTRL_LAST and the like: the kernel's own counts, reserved names
		}
		gs := g.byC[name]
		switch {
		case len(gs) == 0:
			errs = append(errs, fmt.Sprintf("%s = %v (%s) has no Go constant: add one with the comment // %s [release]", name, c.val, c.file, name))
			continue
		case len(gs) > 1:
			errs = append(errs, fmt.Sprintf("%s is the comment of %d Go constants: %v", name, len(gs), gs))
			continue
		}
		gc := gs[0]
		if uapiMarkers[name] {
			switch {
			case gc.since == "":
				errs = append(errs, fmt.Sprintf("%s: %s marks an enum end; its comment needs the [release] of its value", gc.name, name))
			case atLeast(release, gc.since) && !constant.Compare(gc.val, token.EQL, c.val):
				errs = append(errs, fmt.Sprintf("%s = %v, but %s = %v in Linux %s (value of %s on)", gc.name, gc.val, name, c.val, release, gc.since))
			case !atLeast(release, gc.since) && !constant.Compare(gc.val, token.GTR, c.val):
				errs = append(errs, fmt.Sprintf("%s = %v should exceed %s = %v of the older Linux %s", gc.name, gc.val, name, c.val, release))
			}
			continue
		}
		if !constant.Compare(gc.val, token.EQL, c.val) {
			errs = append(errs, fmt.Sprintf("%s = %v, but %s = %v (%s)", gc.name, gc.val, name, c.val, c.file))
		}
		if gc.since != "" && releaseAfter(gc.since, release) {
			notes = append(notes, fmt.Sprintf("%s [%s] is already in Linux %s's header (a stable backport, or the mark is late)", name, gc.since, release))
		}
	}
	for _, gc := range g.consts {
		if _, ok := h.consts[gc.cName]; ok {
			continue
		}
		if _, ok := uapiOtherHeaders[gc.cName]; ok {
			continue
		}
		switch {
		case gc.since == "":
			errs = append(errs, fmt.Sprintf("%s (// %s) is not in Linux %s's header and has no [release] to say it is newer", gc.name, gc.cName, release))
		case atLeast(release, gc.since):
			errs = append(errs, fmt.Sprintf("%s (// %s [%s]) is not in Linux %s's header: wrong name, wrong release, or gone from the kernel", gc.name, gc.cName, gc.since, release))
		}
	}
	for _, n := range notes {
		t.Log(n)
	}
	newer := 0
	for _, gc := range g.consts {
		if _, ok := h.consts[gc.cName]; !ok {
			newer++
		}
	}
	t.Logf("%d C constants, %d Go constants (%d newer than the header), %d exceptions", len(h.consts), len(g.consts), newer, len(uapiExceptions))
	if len(errs) > 0 {
		t.Errorf("%d constant mismatches against Linux %s:\n\t%s", len(errs), release, strings.Join(errs, "\n\t"))
	}
}

// uapiStructExceptions are C structs with no Go type, each with the reason.
var uapiStructExceptions = map[string]string{
	"io_uring_notification_slot": "left over from a notifier registration that was never released (no opcode takes it); " +
		"removed from the header in 6.4, still in older ones",
	"io_uring_notification_register": "as io_uring_notification_slot",
}

func checkUAPIStructs(t *testing.T, h *cHeader, g *goABI, release string) {
	var errs []string
	all := map[string]*cStruct{}
	for n, s := range externalStructs {
		all[n] = s
	}
	for n, s := range h.structs {
		all[n] = s
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := uapiStructExceptions[n]; ok {
			continue
		}
		gt := g.byCStruct[n]
		if gt == nil {
			errs = append(errs, fmt.Sprintf("struct %s (%s, %d bytes) has no Go type: add one whose doc says \"T is struct %s [release]\"", n, all[n].file, all[n].size, n))
			continue
		}
		errs = append(errs, compareStruct(all[n], gt, g, release)...)
	}
	for _, gt := range g.types {
		if _, ok := all[gt.cName]; ok {
			continue
		}
		if gt.since == "" || atLeast(release, gt.since) {
			errs = append(errs, fmt.Sprintf("%s (struct %s [%s]) is not in Linux %s's header: wrong name, wrong release, or gone", gt.name, gt.cName, gt.since, release))
		}
	}
	t.Logf("%d C structs (%d from elsewhere), %d Go struct types, %d exceptions", len(all), len(externalStructs), len(g.types), len(uapiStructExceptions))
	if len(errs) > 0 {
		t.Errorf("%d struct mismatches against Linux %s:\n\t%s", len(errs), release, strings.Join(errs, "\n\t"))
	}
}

// compareStruct checks one Go type against its C layout.
func compareStruct(c *cStruct, gt *goType, g *goABI, release string) []string {
	var errs []string
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Sprintf("%s (struct %s): ", gt.name, c.name)+fmt.Sprintf(format, args...))
	}
	rt := abiTypes[gt.name]
	if rt == nil {
		bad("add %s to abiTypes in uapi_test.go", gt.name)
		return errs
	}
	fields, err := g.flatten(rt, 0)
	if err != nil {
		bad("%v", err)
		return errs
	}
	newer := func(f goField) bool {
		for _, n := range f.names {
			if n.since != "" && releaseAfter(n.since, release) {
				return true
			}
		}
		return false
	}
	names := func(f goField, n string) bool {
		for _, x := range f.names {
			if x.name == n || strings.HasPrefix(n, x.name+".") {
				return true
			}
		}
		return false
	}
	size := int(rt.Size())
	switch {
	case size == c.size:
	case size > c.size:
		// A Go type with room for a flexible array, or fields newer than
		// the header at its end.
		ok := true
		for _, f := range fields {
			if f.off+f.size > c.size && !newer(f) {
				flex := false
				for _, l := range c.leaves {
					if l.flex && l.off == f.off && names(f, l.name) {
						flex = true
					}
				}
				ok = ok && flex
			}
		}
		if !ok {
			bad("size %d, C size %d", size, c.size)
		}
	default:
		bad("size %d, C size %d", size, c.size)
	}
	reshaped := false // fields newer than the header: its reserved space was given out since
	for _, f := range fields {
		reshaped = reshaped || newer(f)
	}
	if int(rt.Align()) != c.align && !reshaped {
		bad("alignment %d, C alignment %d", rt.Align(), c.align)
	}
	// renamed: a member the header names otherwise, or reserves, that a
	// field newer than the header now covers.
	renamed := func(l cLeaf) bool {
		for _, f := range fields {
			if f.off < l.off+max(l.size, 1) && l.off < f.off+f.size && newer(f) {
				return true
			}
		}
		return false
	}
	for _, l := range c.leaves {
		var cands []goField
		for _, f := range fields {
			if names(f, l.name) {
				cands = append(cands, f)
			}
		}
		if len(cands) == 0 {
			if l.flex && size == c.size {
				continue // the Go type is the fixed part
			}
			if !renamed(l) {
				bad("%s (offset %d, %d bytes) is named in no field's comment", l.name, l.off, l.size)
			}
			continue
		}
		ok := false
		var where []string
		for _, f := range cands {
			where = append(where, fmt.Sprintf("%s at %d (%d bytes)", f.goName, f.off, f.size))
			exact := len(f.names) == 1 && f.names[0].name == l.name
			if exact {
				if l.off == f.off && (l.size == f.size || l.flex) {
					ok = true
					if l.structTyp != "" && !l.flex {
						if gt2 := g.byCStruct[l.structTyp]; gt2 == nil || f.typ.Name() != gt2.name {
							bad("%s is a struct %s, but %s is a %v", l.name, l.structTyp, f.goName, f.typ)
						}
					}
				}
				continue
			}
			if l.off >= f.off && l.off+l.size <= f.off+f.size {
				ok = true
			}
		}
		if !ok && !renamed(l) {
			bad("%s is at offset %d (%d bytes), but %s", l.name, l.off, l.size, strings.Join(where, ", "))
		}
	}
	for _, f := range fields {
		for _, n := range f.names {
			found := false
			for _, l := range c.leaves {
				if l.name == n.name || strings.HasPrefix(l.name, n.name+".") {
					found = true
				}
			}
			if !found && (n.since == "" || atLeast(release, n.since)) {
				bad("field %s names %s, which Linux %s's struct lacks (mark it [release] if newer)", f.goName, n.name, release)
			}
		}
	}
	return errs
}

// goABI is what this package declares: constants with their C names and
// struct types with theirs, read from the source with go/types.
type goABI struct {
	consts    []*goConst
	byC       map[string][]*goConst
	types     []*goType
	byCStruct map[string]*goType
	byName    map[string]*goType
	fields    map[string][]astField // Go type name -> its fields' comments
}

type goConst struct {
	name, cName, since string
	val                constant.Value
	typ                types.Type
}

func (c *goConst) String() string { return c.name }

type goType struct {
	name, cName, since string
}

type astField struct {
	name     string // "" for an embedded field
	comment  string
	embedded string // the embedded type's name
}

// goField is a field of a flattened Go struct, with the C names its
// comment gives.
type goField struct {
	goName    string
	off, size int
	typ       reflect.Type
	names     []cName
}

type cName struct{ name, since string }

var (
	cConstComment = regexp.MustCompile(`^([A-Z][A-Z0-9_]*)\b`)
	releaseMark   = regexp.MustCompile(`\[(\d+\.\d+)\]`)
	isStructDoc   = regexp.MustCompile(`\bis struct ([a-z_][a-z0-9_]*)`)
	cFieldName    = regexp.MustCompile(`^[a-z_][a-z0-9_.]*$`)
)

// loadGoABI reads this package's source (the files the current GOOS
// builds) and evaluates its constants with go/types. Imports are stubs and
// function bodies are skipped: the ABI constants depend on neither.
func loadGoABI(t *testing.T) *goABI {
	t.Helper()
	fset := token.NewFileSet()
	ents, err := os.ReadDir(".")
	require.NoError(t, err)
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(".", n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(".", n), nil, parser.ParseComments)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{IgnoreFuncBodies: true, Importer: stubImporter{}, Error: func(error) {}}
	_, _ = conf.Check("github.com/pure-uring/uring/sys", fset, files, info)

	g := &goABI{byC: map[string][]*goConst{}, byCStruct: map[string]*goType{}, byName: map[string]*goType{}, fields: map[string][]astField{}}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					if gd.Tok != token.CONST || s.Comment == nil {
						continue
					}
					text := strings.TrimSpace(s.Comment.Text())
					m := cConstComment.FindStringSubmatch(text)
					if m == nil {
						continue
					}
					since := ""
					if r := releaseMark.FindStringSubmatch(text); r != nil {
						since = r[1]
					}
					for _, id := range s.Names {
						obj, _ := info.Defs[id].(*types.Const)
						if obj == nil || obj.Val().Kind() == constant.Unknown {
							t.Errorf("%s: cannot evaluate the Go constant %s", fset.Position(id.Pos()), id.Name)
							continue
						}
						c := &goConst{name: id.Name, cName: m[1], since: since, val: obj.Val(), typ: obj.Type()}
						g.consts = append(g.consts, c)
						g.byC[c.cName] = append(g.byC[c.cName], c)
					}
				case *ast.TypeSpec:
					st, ok := s.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fl := range st.Fields.List {
						af := astField{comment: fl.Comment.Text()}
						if len(fl.Names) == 0 {
							if id, ok := fl.Type.(*ast.Ident); ok {
								af.embedded = id.Name
							}
							g.fields[s.Name.Name] = append(g.fields[s.Name.Name], af)
						}
						for _, n := range fl.Names {
							af.name = n.Name
							g.fields[s.Name.Name] = append(g.fields[s.Name.Name], af)
						}
					}
					doc := s.Doc
					if doc == nil && len(gd.Specs) == 1 {
						doc = gd.Doc
					}
					if doc == nil {
						continue
					}
					text := doc.Text()
					first, _, _ := strings.Cut(text, "\n\n")
					m := isStructDoc.FindStringSubmatch(first)
					if m == nil || !strings.HasPrefix(first, s.Name.Name+" is struct ") {
						continue
					}
					gt := &goType{name: s.Name.Name, cName: m[1]}
					if r := releaseMark.FindStringSubmatch(first); r != nil {
						gt.since = r[1]
					}
					if prev := g.byCStruct[gt.cName]; prev != nil {
						t.Errorf("%s and %s both say they are struct %s", prev.name, gt.name, gt.cName)
					}
					g.types = append(g.types, gt)
					g.byCStruct[gt.cName] = gt
					g.byName[gt.name] = gt
				}
			}
		}
	}
	require.NotEmpty(t, g.consts, "no constants with C names found in the package source")
	for _, gt := range g.types {
		if abiTypes[gt.name] == nil {
			t.Errorf("%s is struct %s: add it to abiTypes in uapi_test.go", gt.name, gt.cName)
		}
	}
	return g
}

// flatten lists rt's fields (embedded structs expanded) with the C names
// their comments give.
func (g *goABI) flatten(rt reflect.Type, base int) ([]goField, error) {
	afs := g.fields[rt.Name()]
	var out []goField
	for i := 0; i < rt.NumField(); i++ {
		sf := rt.Field(i)
		if sf.Anonymous {
			sub, err := g.flatten(sf.Type, base+int(sf.Offset))
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
			continue
		}
		var comment string
		for _, af := range afs {
			if af.name == sf.Name {
				comment = af.comment
			}
		}
		names, err := fieldCNames(comment)
		if err != nil {
			return nil, fmt.Errorf("field %s.%s: %w", rt.Name(), sf.Name, err)
		}
		out = append(out, goField{goName: rt.Name() + "." + sf.Name, off: base + int(sf.Offset), size: int(sf.Type.Size()), typ: sf.Type, names: names})
	}
	return out, nil
}

// fieldCNames reads the C member names a field's comment starts with:
// "off | addr2 | cmd_op,__pad1", "min_wait_usec [6.12] (was pad)",
// "cmd[16:80]". The names end at the first " (", ": " or ";".
func fieldCNames(comment string) ([]cName, error) {
	head := strings.TrimSpace(comment)
	for _, sep := range []string{" (", ": ", ";"} {
		if i := strings.Index(head, sep); i >= 0 {
			head = head[:i]
		}
	}
	if head == "" {
		return nil, fmt.Errorf("no comment naming the C member")
	}
	var out []cName
	for _, part := range strings.FieldsFunc(head, func(r rune) bool { return r == '|' || r == ',' }) {
		part = strings.TrimSpace(part)
		n := cName{}
		if m := regexp.MustCompile(`\s*\[(\d+\.\d+)\]$`).FindStringSubmatchIndex(part); m != nil {
			n.since = part[m[2]:m[3]]
			part = part[:m[0]]
		}
		if i := strings.Index(part, "["); i >= 0 && strings.HasSuffix(part, "]") {
			part = part[:i] // an index: cmd[16:80], big_cqe[]
		}
		if !cFieldName.MatchString(part) {
			return nil, fmt.Errorf("comment %q: %q is not a C member name", comment, part)
		}
		n.name = part
		out = append(out, n)
	}
	return out, nil
}

// stubImporter gives every import an empty package (unsafe the real one):
// the constants do not use imports, and function bodies are not checked.
type stubImporter struct{}

func (stubImporter) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	p := types.NewPackage(path, filepath.Base(path))
	p.MarkComplete()
	return p, nil
}

// abiTypes are the Go types of C structs, for their sizes and offsets.
var abiTypes = map[string]reflect.Type{}

func init() {
	for _, v := range []any{
		SQE{}, CQE{}, SQRingOffsets{}, CQRingOffsets{}, Params{}, ProbeOp{}, Probe{},
		RsrcRegister{}, RsrcUpdate{}, RsrcUpdate2{}, FilesUpdate{}, Buf{}, BufReg{}, BufStatus{},
		Timespec{}, GeteventsArg{}, RegWait{}, SyncCancelReg{}, FileIndexRange{}, RecvmsgOut{},
		NAPI{}, ClockRegister{}, CloneBuffers{}, RegionDesc{}, MemRegionReg{}, Restriction{},
		AttrPI{}, QueryHdr{}, QueryOpcode{},
		ZcrxRQE{}, ZcrxCQE{}, ZcrxOffsets{}, ZcrxAreaReg{}, ZcrxIfqReg{},
		BufRing{}, TaskRestriction{}, QueryZcrxInfo{}, QueryZcrxEventInfo{}, QuerySCQInfo{}, IOTimespec{},
		ZcrxStats{}, ZcrxEventDesc{}, ZcrxCtrl{}, ZcrxCtrlFlushRQArg{}, ZcrxCtrlExportArg{},
		ZcrxCtrlArmEventArg{}, ZcrxCtrlAddAreaArg{},
		BPFCtx{}, BPFFilter{}, BPFRegister{}, MockProbe{}, MockCreate{},
	} {
		rt := reflect.TypeOf(v)
		abiTypes[rt.Name()] = rt
	}
}

// TestReleaseMarks checks the [release] in each constant's comment against
// the Since tables the probes use.
func TestReleaseMarks(t *testing.T) {
	g := loadGoABI(t)
	n := 0
	for _, c := range g.consts {
		if uapiMarkers[c.cName] {
			continue
		}
		v, _ := constant.Uint64Val(c.val)
		var since string
		switch c.typ.String() {
		case "github.com/pure-uring/uring/sys.Op":
			since = Op(v).Since()
		case "github.com/pure-uring/uring/sys.RegisterOp":
			since = RegisterOp(v).Since()
		case "github.com/pure-uring/uring/sys.SetupFlags":
			since = SetupFlags(v).Since()
		default:
			continue
		}
		n++
		require.Equal(t, c.since, since, "%s (// %s [%s]).Since()", c.name, c.cName, c.since)
	}
	require.Greater(t, n, 100, "constants checked")
}
