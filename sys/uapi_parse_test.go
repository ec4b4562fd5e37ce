package sys

// A reader for the kernel's uapi io_uring headers, enough to compare them
// with this package without a C compiler: #define constants (with the
// integer expressions the headers use), enum members (auto-incremented),
// and struct layouts computed from the declarations with the natural
// alignment of the __u8 … __u64 family, arrays, nested and anonymous
// structs and unions, flexible arrays and __attribute__((packed)), as GCC
// lays them out on the 64-bit targets this package supports.

import (
	"fmt"
	"go/constant"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// cHeader is what the headers define.
type cHeader struct {
	consts  map[string]cConst // #define NAME value, enum members
	raw     map[string]cConst // #defines not yet evaluated: val is nil, text in raw text
	rawText map[string]string
	order   []string            // consts in the order met
	enums   map[string][]string // enum tag (or "enum#N" when anonymous) -> members
	structs map[string]*cStruct // struct tag -> layout
	files   []string            // the files read
	dir     string              // where io_uring.h is
}

type cConst struct {
	name string
	val  constant.Value
	file string
	enum string // the enum it belongs to, "" for a #define
}

// cStruct is a struct's layout: its size and alignment and every leaf
// member with its offset. A member of a named struct type is one leaf
// (that struct is checked on its own); the members of anonymous structs
// and unions are leaves of the enclosing struct, with the anonymous
// member's name as a prefix when it has one ("socket.family").
type cStruct struct {
	name        string
	size, align int
	leaves      []cLeaf
	file        string
}

type cLeaf struct {
	name      string
	off, size int
	flex      bool   // a flexible array ([] or [0]): size 0
	structTyp string // "io_sqring_offsets" for a member of a named struct type
}

// externalStructs are structs the headers use but take from elsewhere
// (linux/time_types.h).
var externalStructs = map[string]*cStruct{
	"__kernel_timespec": {name: "__kernel_timespec", size: 16, align: 8, file: "linux/time_types.h", leaves: []cLeaf{
		{name: "tv_sec", off: 0, size: 8}, {name: "tv_nsec", off: 8, size: 8},
	}},
}

// cScalars are the scalar types the headers use: size = alignment.
var cScalars = map[string]int{
	"__u8": 1, "__s8": 1,
	"__u16": 2, "__s16": 2, "__be16": 2, "__le16": 2,
	"__u32": 4, "__s32": 4, "__be32": 4, "__le32": 4,
	"__u64": 8, "__s64": 8, "__be64": 8, "__le64": 8, "__aligned_u64": 8,
}

// readUAPI reads io_uring.h and the io_uring/*.h next to it.
func readUAPI(path string) (*cHeader, error) {
	h := &cHeader{consts: map[string]cConst{}, raw: map[string]cConst{}, rawText: map[string]string{},
		enums: map[string][]string{}, structs: map[string]*cStruct{}, dir: filepath.Dir(path)}
	// io_uring.h, with the io_uring/*.h it includes read where it includes
	// them, then the io_uring/*.h it does not include (query.h and others
	// that applications include themselves).
	if err := h.parseFile(path, "io_uring.h"); err != nil {
		return nil, err
	}
	sub, _ := filepath.Glob(filepath.Join(h.dir, "io_uring", "*.h"))
	for _, f := range sub {
		if err := h.parseFile(f, "io_uring/"+filepath.Base(f)); err != nil {
			return nil, err
		}
	}
	// Macros expand where they are used: evaluate them once everything,
	// enum members included, is known.
	for _, name := range h.order {
		if _, done := h.consts[name]; done {
			continue
		}
		if _, err := h.lookup(name, 0); err != nil {
			return nil, fmt.Errorf("#define %s (%s): %w", name, h.raw[name].file, err)
		}
	}
	return h, nil
}

// parseFile parses one file once.
func (h *cHeader) parseFile(path, rel string) error {
	if slices.Contains(h.files, rel) {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	h.files = append(h.files, rel)
	if err := h.parse(string(b), rel); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

var includeRe = regexp.MustCompile(`^#\s*include\s*<linux/(io_uring/[a-z_]+\.h)>`)

// lookup returns a constant, evaluating a #define on first use.
func (h *cHeader) lookup(name string, depth int) (cConst, error) {
	if c, ok := h.consts[name]; ok {
		return c, nil
	}
	c, ok := h.raw[name]
	if !ok {
		return c, fmt.Errorf("unknown name %s", name)
	}
	if depth > 20 {
		return c, fmt.Errorf("%s: recursive macro", name)
	}
	e := &cExpr{h: h, toks: tokenize(h.rawText[name]), depth: depth + 1}
	v, err := e.expr(0)
	if err == nil && e.pos != len(e.toks) {
		err = fmt.Errorf("trailing %q", e.toks[e.pos:])
	}
	if err != nil {
		return c, err
	}
	c.val = v.value()
	h.consts[name] = c
	return c, nil
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	defineRe     = regexp.MustCompile(`^#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(?)\s*(.*)$`)
)

// parse handles one file: the preprocessor lines first, then the
// declarations in what is left.
func (h *cHeader) parse(src, file string) error {
	src = blockComment.ReplaceAllStringFunc(src, func(c string) string {
		return strings.Repeat("\n", strings.Count(c, "\n")) // keep line numbers
	})
	src = lineComment.ReplaceAllString(src, "")
	src = strings.ReplaceAll(src, "\\\n", " ")
	var body strings.Builder
	// Conditionals: only C++ blocks are dropped; the include guards and
	// the time_types.h switch hold.
	var live []bool
	on := func() bool {
		for _, l := range live {
			if !l {
				return false
			}
		}
		return true
	}
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			if on() {
				body.WriteString(line)
			}
			body.WriteByte('\n')
			continue
		}
		body.WriteByte('\n')
		d := strings.TrimSpace(t[1:])
		switch {
		case strings.HasPrefix(d, "ifdef"), strings.HasPrefix(d, "ifndef"), strings.HasPrefix(d, "if "), strings.HasPrefix(d, "if("):
			live = append(live, !strings.Contains(d, "__cplusplus"))
		case strings.HasPrefix(d, "else"):
			if len(live) == 0 {
				return fmt.Errorf("#else without #if")
			}
			live[len(live)-1] = !live[len(live)-1]
		case strings.HasPrefix(d, "endif"):
			if len(live) == 0 {
				return fmt.Errorf("#endif without #if")
			}
			live = live[:len(live)-1]
		case strings.HasPrefix(d, "include"):
			// <linux/io_uring/x.h> is part of the uapi: read it here, where
			// its declarations come into scope; other includes (types,
			// time_types, fs) define nothing the headers' values need.
			if m := includeRe.FindStringSubmatch(t); m != nil && on() {
				if err := h.parseFile(filepath.Join(h.dir, m[1]), m[1]); err != nil {
					return err
				}
			}
		case strings.HasPrefix(d, "undef"), strings.HasPrefix(d, "pragma"):
		case strings.HasPrefix(d, "define"):
			if !on() {
				continue
			}
			m := defineRe.FindStringSubmatch(t)
			if m == nil {
				return fmt.Errorf("cannot read %q", t)
			}
			if m[2] == "(" || strings.TrimSpace(m[3]) == "" {
				continue // a function-like macro or a guard: no value
			}
			h.order = append(h.order, m[1])
			h.raw[m[1]] = cConst{name: m[1], file: file}
			h.rawText[m[1]] = m[3]
		default:
			return fmt.Errorf("unknown directive %q", t)
		}
	}
	if len(live) != 0 {
		return fmt.Errorf("unterminated #if")
	}
	p := &cParser{h: h, toks: tokenize(body.String()), file: file}
	return p.top()
}

func (h *cHeader) add(c cConst) {
	if _, dup := h.consts[c.name]; !dup {
		h.order = append(h.order, c.name)
	}
	h.consts[c.name] = c
}

var tokRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*|<<|>>|"(?:[^"\\]|\\.)*"|\S`)

func tokenize(s string) []string { return tokRe.FindAllString(s, -1) }

// cVal is an integer with its C type: 32 or 64 bits, signed or not.
type cVal struct {
	v        uint64 // the bits
	wide     bool   // 64-bit
	unsigned bool
}

func (v cVal) norm() cVal {
	if !v.wide {
		v.v &= 0xffffffff
	}
	return v
}

// value is the integer the bits stand for.
func (v cVal) value() constant.Value {
	v = v.norm()
	switch {
	case v.unsigned:
		return constant.MakeUint64(v.v)
	case v.wide:
		return constant.MakeInt64(int64(v.v))
	default:
		return constant.MakeInt64(int64(int32(uint32(v.v))))
	}
}

type cExpr struct {
	h     *cHeader
	toks  []string
	pos   int
	depth int
}

func (e *cExpr) peek() string {
	if e.pos < len(e.toks) {
		return e.toks[e.pos]
	}
	return ""
}

func (e *cExpr) next() string { t := e.peek(); e.pos++; return t }

// C binary operators by precedence (higher binds tighter).
var cBinPrec = map[string]int{"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}

func (e *cExpr) expr(minPrec int) (cVal, error) {
	x, err := e.unary()
	if err != nil {
		return x, err
	}
	for {
		op := e.peek()
		prec, ok := cBinPrec[op]
		if !ok || prec <= minPrec {
			return x, nil
		}
		e.next()
		y, err := e.expr(prec)
		if err != nil {
			return x, err
		}
		x, err = binop(op, x, y)
		if err != nil {
			return x, err
		}
	}
}

func binop(op string, x, y cVal) (cVal, error) {
	// Shifts take the left operand's type; the rest the usual conversions.
	r := cVal{wide: x.wide, unsigned: x.unsigned}
	if op != "<<" && op != ">>" {
		r = cVal{wide: x.wide || y.wide, unsigned: x.unsigned || y.unsigned}
	}
	switch op {
	case "|":
		r.v = x.v | y.v
	case "^":
		r.v = x.v ^ y.v
	case "&":
		r.v = x.v & y.v
	case "<<":
		r.v = x.v << y.v
	case ">>":
		r.v = x.v >> y.v
	case "+":
		r.v = x.v + y.v
	case "-":
		r.v = x.v - y.v
	case "*":
		r.v = x.v * y.v
	default:
		return r, fmt.Errorf("operator %s", op)
	}
	return r.norm(), nil
}

func (e *cExpr) unary() (cVal, error) {
	t := e.next()
	switch {
	case t == "~":
		x, err := e.unary()
		x.v = ^x.v
		return x.norm(), err
	case t == "-":
		x, err := e.unary()
		x.v = -x.v
		return x.norm(), err
	case t == "+":
		return e.unary()
	case t == "(":
		// A cast: (__u32) or (__u64).
		if n, ok := cScalars[e.peek()]; ok && e.pos+1 < len(e.toks) && e.toks[e.pos+1] == ")" {
			typ := e.next()
			e.next()
			x, err := e.unary()
			x.wide = n == 8
			x.unsigned = strings.HasPrefix(typ, "__u") || strings.HasPrefix(typ, "__aligned") || strings.HasPrefix(typ, "__be") || strings.HasPrefix(typ, "__le")
			return x.norm(), err
		}
		x, err := e.expr(0)
		if err != nil {
			return x, err
		}
		if e.next() != ")" {
			return x, fmt.Errorf("missing )")
		}
		return x, nil
	case len(t) > 0 && t[0] >= '0' && t[0] <= '9':
		return parseCInt(t)
	case len(t) > 0 && (t[0] == '_' || t[0] >= 'A' && t[0] <= 'Z' || t[0] >= 'a' && t[0] <= 'z'):
		c, err := e.h.lookup(t, e.depth)
		if err != nil {
			return cVal{}, err
		}
		if u, exact := constant.Uint64Val(c.val); exact {
			return cVal{v: u, unsigned: u > 1<<31-1, wide: u > 1<<32-1}, nil
		}
		i, _ := constant.Int64Val(c.val)
		return cVal{v: uint64(i), wide: i < -1<<31}, nil
	}
	return cVal{}, fmt.Errorf("unexpected %q", t)
}

func parseCInt(t string) (cVal, error) {
	digits := strings.TrimRight(t, "uUlL")
	suffix := strings.ToLower(t[len(digits):])
	v, err := strconv.ParseUint(digits, 0, 64)
	if err != nil {
		return cVal{}, err
	}
	r := cVal{v: v, unsigned: strings.Contains(suffix, "u"), wide: strings.Contains(suffix, "l")}
	// An unsuffixed constant too big for int becomes unsigned (hex) or long.
	if !r.wide && v > 0xffffffff {
		r.wide = true
	}
	if !r.wide && !r.unsigned && v > 0x7fffffff {
		r.unsigned = strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X")
		r.wide = !r.unsigned
	}
	return r, nil
}

// cParser reads the declarations of one file.
type cParser struct {
	h     *cHeader
	toks  []string
	pos   int
	file  string
	anonE int
}

func (p *cParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *cParser) next() string { t := p.peek(); p.pos++; return t }

func (p *cParser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("%s: expected %q, got %q near %q", p.file, t, got, p.context())
	}
	return nil
}

func (p *cParser) context() string {
	lo, hi := max(p.pos-8, 0), min(p.pos+8, len(p.toks))
	return strings.Join(p.toks[lo:hi], " ")
}

func (p *cParser) top() error {
	for p.pos < len(p.toks) {
		switch t := p.next(); t {
		case "struct", "union":
			name := p.next()
			if p.peek() == ";" {
				p.next() // a forward declaration
				continue
			}
			if err := p.expect("{"); err != nil {
				return err
			}
			s, err := p.aggregate(name, t == "union")
			if err != nil {
				return err
			}
			s.file = p.file
			p.h.structs[name] = s
			if err := p.expect(";"); err != nil {
				return err
			}
		case "enum":
			if err := p.enum(); err != nil {
				return err
			}
		case "extern":
			// extern "C" { … } around C++: dropped with its #ifdef; tolerate it.
			p.next()
			p.next()
		case "}":
		default:
			return fmt.Errorf("%s: unexpected %q near %q", p.file, t, p.context())
		}
	}
	return nil
}

func (p *cParser) enum() error {
	tag := ""
	if p.peek() != "{" {
		tag = p.next()
	} else {
		p.anonE++
		tag = fmt.Sprintf("%s#%d", p.file, p.anonE)
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	next := cVal{}
	for p.peek() != "}" {
		name := p.next()
		if p.peek() == "=" {
			p.next()
			start := p.pos
			depth := 0
			for p.pos < len(p.toks) {
				t := p.peek()
				if depth == 0 && (t == "," || t == "}") {
					break
				}
				if t == "(" {
					depth++
				} else if t == ")" {
					depth--
				}
				p.pos++
			}
			e := &cExpr{h: p.h, toks: p.toks[start:p.pos]}
			v, err := e.expr(0)
			if err != nil {
				return fmt.Errorf("%s: enum %s: %s: %w", p.file, tag, name, err)
			}
			next = v
		}
		p.h.add(cConst{name: name, val: next.value(), file: p.file, enum: tag})
		p.h.enums[tag] = append(p.h.enums[tag], name)
		next.v++
		next = next.norm()
		if p.peek() == "," {
			p.next()
		}
	}
	p.next()
	return p.expect(";")
}

// aggregate reads a struct or union body after "{" up to and including "}".
func (p *cParser) aggregate(name string, union bool) (*cStruct, error) {
	s := &cStruct{name: name, align: 1}
	off := 0
	place := func(size, align int) int {
		if union {
			s.size = max(s.size, size)
			s.align = max(s.align, align)
			return 0
		}
		off = (off + align - 1) / align * align
		at := off
		off += size
		s.size = off
		s.align = max(s.align, align)
		return at
	}
	for p.peek() != "}" {
		if p.pos >= len(p.toks) {
			return nil, fmt.Errorf("%s: struct %s: unterminated", p.file, name)
		}
		if p.peek() == "__DECLARE_FLEX_ARRAY" {
			p.next()
			if err := p.expect("("); err != nil {
				return nil, err
			}
			size, align, styp, err := p.typ()
			if err != nil {
				return nil, err
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
			member := p.next()
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			if err := p.expect(";"); err != nil {
				return nil, err
			}
			_ = size
			at := place(0, align)
			s.leaves = append(s.leaves, cLeaf{name: member, off: at, flex: true, structTyp: styp})
			continue
		}
		// An anonymous struct or union, maybe with a member name.
		if (p.peek() == "struct" || p.peek() == "union") && p.pos+1 < len(p.toks) && p.toks[p.pos+1] == "{" {
			isUnion := p.next() == "union"
			p.next()
			inner, err := p.aggregate("", isUnion)
			if err != nil {
				return nil, err
			}
			if p.attributes() {
				inner.align = 1
			}
			prefix := ""
			if p.peek() != ";" {
				prefix = p.next() + "."
			}
			if p.attributes() {
				inner.align = 1
			}
			if err := p.expect(";"); err != nil {
				return nil, err
			}
			at := place(inner.size, inner.align)
			for _, l := range inner.leaves {
				l.off += at
				l.name = prefix + l.name
				s.leaves = append(s.leaves, l)
			}
			continue
		}
		size, align, styp, err := p.typ()
		if err != nil {
			return nil, fmt.Errorf("struct %s: %w", name, err)
		}
		for {
			member := p.next()
			n, flex := 1, false
			for p.peek() == "[" {
				p.next()
				if p.peek() == "]" {
					flex = true
					p.next()
					continue
				}
				start := p.pos
				for p.peek() != "]" {
					p.pos++
				}
				e := &cExpr{h: p.h, toks: p.toks[start:p.pos]}
				v, err := e.expr(0)
				if err != nil {
					return nil, fmt.Errorf("struct %s: %s[]: %w", name, member, err)
				}
				p.next()
				if v.v == 0 {
					flex = true
				}
				n *= int(v.v)
			}
			p.attributes()
			msize := size * n
			if flex {
				msize = 0
			}
			at := place(msize, align)
			s.leaves = append(s.leaves, cLeaf{name: member, off: at, size: msize, flex: flex, structTyp: styp})
			if p.peek() == "," {
				p.next()
				continue
			}
			break
		}
		if err := p.expect(";"); err != nil {
			return nil, err
		}
	}
	p.next() // }
	if p.attributes() {
		s.align = 1
	}
	s.size = (s.size + s.align - 1) / s.align * s.align
	return s, nil
}

// typ reads a member type: a scalar or a named struct.
func (p *cParser) typ() (size, align int, structTyp string, err error) {
	t := p.next()
	if n, ok := cScalars[t]; ok {
		return n, n, "", nil
	}
	if t == "struct" || t == "union" {
		name := p.next()
		s := p.h.structs[name]
		if s == nil {
			s = externalStructs[name]
		}
		if s == nil {
			return 0, 0, "", fmt.Errorf("%s: unknown struct %s near %q", p.file, name, p.context())
		}
		return s.size, s.align, name, nil
	}
	return 0, 0, "", fmt.Errorf("%s: unknown type %q near %q", p.file, t, p.context())
}

// attributes skips __attribute__((…)) and reports whether one said packed.
func (p *cParser) attributes() bool {
	packed := false
	for p.peek() == "__attribute__" {
		p.next()
		depth := 0
		for {
			t := p.next()
			if t == "(" {
				depth++
			} else if t == ")" {
				depth--
				if depth == 0 {
					break
				}
			} else if t == "packed" || t == "__packed__" {
				packed = true
			}
			if t == "" {
				break
			}
		}
	}
	return packed
}

// dpkgVersion reads the installed version of pkg from dpkg's status file.
func dpkgVersion(pkg string) string {
	b, err := os.ReadFile("/var/lib/dpkg/status")
	if err != nil {
		return ""
	}
	for _, para := range strings.Split(string(b), "\n\n") {
		if !strings.Contains(para, "Package: "+pkg+"\n") {
			continue
		}
		if !strings.Contains(para, "Status: install ok installed") {
			continue
		}
		for _, l := range strings.Split(para, "\n") {
			if v, ok := strings.CutPrefix(l, "Version: "); ok {
				return v
			}
		}
	}
	return ""
}

// kernelRelease turns a package version ("7.3.4-1~bpo13+1", "6.1.187-1")
// into the release it carries ("7.3").
func kernelRelease(version string) (string, error) {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(version)
	if m == nil {
		return "", fmt.Errorf("no kernel release in %q", version)
	}
	return m[1] + "." + m[2], nil
}
