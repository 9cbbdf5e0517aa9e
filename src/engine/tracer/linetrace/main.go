// Command linetrace runs a command under ptrace and reports which lines of one source file ran in
// the executables it was told to watch, on a file descriptor the traced processes never hold.
//
// It is the engine's witness outside the test's process (docs/execution.md, "the line tracer"): the
// coverage a test binary writes at exit is the process's to forge, the lines a tracer saw trap are
// not. Only Go's standard library, built once per Go installation by the engine (src/engine/tracer).
//
//	linetrace -report-fd=3 -file=/abs/src/lib.rs -from=10 -to=40 -exe=/abs/test-bin ... -- sh run.sh
//
// Every line-table address of `file` with a line in [from, to] gets an int3 in each watched
// executable a traced process execs (watched: the same file as an -exe, by device and inode). The first
// hit of an address restores its byte, rewinds the instruction pointer and records the line: one trap
// per address, no single-stepping. Every fork, vfork, clone and exec is followed; when the command
// itself ends, whatever it left running is killed. The report, one JSON line, is written once every
// traced process is gone; the exit status is the command's.
package main

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

type exeList []string

func (e *exeList) String() string     { return strings.Join(*e, ",") }
func (e *exeList) Set(v string) error { *e = append(*e, v); return nil }

type breakpoint struct {
	orig  byte
	lines []int
}

// One address space: its planted breakpoints, and those already hit (another thread may trap on one
// before the first hit restored it).
type space struct {
	planted map[uint64]*breakpoint
	done    map[uint64]bool
}

type fileID struct{ dev, ino uint64 }

type tracer struct {
	file     string
	from, to int
	watched  map[fileID]bool
	tables   map[fileID]map[uint64][]int // by executable: load-relative address -> lines
	spaces   map[int]*space              // by thread id
	pending  map[int]bool                // new threads that stopped before their parent's event
	starting map[int]bool                // new threads named by their parent's event, their first stop still to come
	hit      map[int]bool
	lines    map[int]bool // lines with an address in a watched executable that was run
	planted  int
	problems []string
}

type report struct {
	Hit      []int    `json:"hit"`
	Lines    []int    `json:"lines"`
	Planted  int      `json:"planted"`
	Problems []string `json:"problems,omitempty"`
}

const (
	exitKill      = 0x100000 // PTRACE_O_EXITKILL: every tracee dies with the tracer
	ptraceOptions = syscall.PTRACE_O_TRACECLONE | syscall.PTRACE_O_TRACEFORK | syscall.PTRACE_O_TRACEVFORK | syscall.PTRACE_O_TRACEEXEC | exitKill
	wall          = 0x40000000 // __WALL: threads and clones too
	siKernel      = 0x80
	cloneVM       = 0x100
)

func main() {
	runtime.LockOSThread() // every ptrace call from the thread that is the tracer
	fd := flag.Int("report-fd", -1, "where the report goes")
	t := &tracer{watched: map[fileID]bool{}, tables: map[fileID]map[uint64][]int{}, spaces: map[int]*space{}, pending: map[int]bool{}, starting: map[int]bool{}, hit: map[int]bool{}, lines: map[int]bool{}}
	flag.StringVar(&t.file, "file", "", "the source file whose lines are watched")
	flag.IntVar(&t.from, "from", 0, "first line")
	flag.IntVar(&t.to, "to", 0, "last line")
	var exes exeList
	flag.Var(&exes, "exe", "an executable to watch (repeatable)")
	flag.Parse()
	if *fd < 3 || t.file == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "linetrace: usage: linetrace -report-fd=N -file=F -from=A -to=B -exe=E... -- command...")
		os.Exit(125)
	}
	out := os.NewFile(uintptr(*fd), "report")
	syscall.CloseOnExec(*fd) // no traced process ever holds it
	// Not dumpable: a process of the same user without CAP_SYS_PTRACE can neither attach to the
	// tracer nor open its /proc/<pid>/fd/N or mem.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); e != 0 {
		fmt.Fprintln(os.Stderr, "linetrace: prctl:", e)
		os.Exit(125)
	}
	t.file = filepath.Clean(t.file)
	for _, e := range exes {
		if id, err := idOf(e); err == nil {
			t.watched[id] = true
		}
	}
	status := t.run(flag.Args())
	rep := report{Hit: sorted(t.hit), Lines: sorted(t.lines), Planted: t.planted, Problems: t.problems}
	b, _ := json.Marshal(rep)
	out.Write(append(b, '\n'))
	out.Close()
	os.Exit(status)
}

func sorted(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func idOf(path string) (fileID, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), st.Ino}, nil
}

func (t *tracer) problem(format string, a ...any) {
	if len(t.problems) < 20 {
		t.problems = append(t.problems, fmt.Sprintf(format, a...))
	}
}

// run starts the command stopped at its exec, follows it and everything it starts, and returns its status.
func (t *tracer) run(argv []string) int {
	path := argv[0]
	if !strings.Contains(path, "/") {
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if st, err := os.Stat(filepath.Join(dir, path)); err == nil && !st.IsDir() {
				path = filepath.Join(dir, path)
				break
			}
		}
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}}
	root, err := syscall.ForkExec(path, argv, attr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linetrace: cannot start", argv[0]+":", err)
		return 127
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(root, &ws, wall, nil); err != nil || !ws.Stopped() {
		t.problem("the command did not stop at its start")
		return 125
	}
	if err := syscall.PtraceSetOptions(root, ptraceOptions); err != nil {
		t.problem("ptrace options: %v", err)
		syscall.Kill(root, syscall.SIGKILL)
		return 125
	}
	t.exec(root)
	syscall.PtraceCont(root, 0)
	status := -1
	for {
		tid, err := syscall.Wait4(-1, &ws, wall, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: every traced process is gone
			break
		}
		switch {
		case ws.Exited() || ws.Signaled():
			delete(t.spaces, tid)
			delete(t.starting, tid)
			if tid == root {
				if ws.Exited() {
					status = ws.ExitStatus()
				} else {
					status = 128 + int(ws.Signal())
				}
				// What the command left running is ended with it (the sandbox would end it too).
				for other := range t.spaces {
					syscall.Kill(other, syscall.SIGKILL)
				}
			}
		case ws.Stopped():
			t.stopped(tid, ws, root)
		}
	}
	if status < 0 {
		status = 125
	}
	return status
}

func (t *tracer) stopped(tid int, ws syscall.WaitStatus, root int) {
	sig := ws.StopSignal()
	if sig == syscall.SIGTRAP && ws.TrapCause() > 0 {
		switch ws.TrapCause() {
		case syscall.PTRACE_EVENT_FORK, syscall.PTRACE_EVENT_VFORK, syscall.PTRACE_EVENT_CLONE:
			msg, _ := syscall.PtraceGetEventMsg(tid)
			child := int(msg)
			parent := t.spaces[tid]
			if ws.TrapCause() == syscall.PTRACE_EVENT_FORK || (ws.TrapCause() == syscall.PTRACE_EVENT_CLONE && !sharesMemory(tid)) {
				parent = parent.copy() // its own memory, with the breakpoints not yet hit still planted
			}
			t.spaces[child] = parent
			if t.pending[child] {
				delete(t.pending, child)
				syscall.PtraceCont(child, 0)
			} else {
				t.starting[child] = true
			}
		case syscall.PTRACE_EVENT_EXEC:
			// The thread that called exec now has the process's id; the others are gone.
			if msg, err := syscall.PtraceGetEventMsg(tid); err == nil && int(msg) != tid {
				delete(t.spaces, int(msg))
			}
			t.exec(tid)
		}
		syscall.PtraceCont(tid, 0)
		return
	}
	sp, known := t.spaces[tid]
	if !known {
		// A new thread or process reporting before its parent's event: held until the event names it.
		if sig == syscall.SIGSTOP {
			t.pending[tid] = true
			return
		}
	}
	if sig == syscall.SIGTRAP && sp != nil && t.breakpoint(tid, sp) {
		syscall.PtraceCont(tid, 0)
		return
	}
	if sig == syscall.SIGSTOP && t.starting[tid] {
		delete(t.starting, tid) // the stop every new traced thread starts with, not a signal to deliver
		syscall.PtraceCont(tid, 0)
		return
	}
	syscall.PtraceCont(tid, int(sig)) // the process's own signal, delivered
}

func (s *space) copy() *space {
	if s == nil {
		return nil
	}
	c := &space{planted: make(map[uint64]*breakpoint, len(s.planted)), done: make(map[uint64]bool, len(s.done))}
	for a, b := range s.planted {
		c.planted[a] = b
	}
	for a := range s.done {
		c.done[a] = true
	}
	return c
}

// sharesMemory: whether the clone being reported had CLONE_VM (a thread, or a clone that runs in the
// parent's memory), read from the parent's syscall arguments at the event stop.
func sharesMemory(tid int) bool {
	var regs syscall.PtraceRegs
	if syscall.PtraceGetRegs(tid, &regs) != nil {
		return true
	}
	flags := regs.Rdi
	if regs.Orig_rax == 435 { // clone3: flags are the first field of struct clone_args
		var buf [8]byte
		if n, err := syscall.PtracePeekData(tid, uintptr(regs.Rdi), buf[:]); err != nil || n != 8 {
			return true
		}
		flags = binary.LittleEndian.Uint64(buf[:])
	}
	return flags&cloneVM != 0
}

// breakpoint handles a SIGTRAP: ours (an int3 the tracer planted, trapped by the CPU) is recorded and
// undone; anything else is the process's own.
func (t *tracer) breakpoint(tid int, sp *space) bool {
	var info [128]byte
	if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_GETSIGINFO, uintptr(tid), 0, uintptr(unsafe.Pointer(&info[0])), 0, 0); e != 0 {
		return false
	}
	if int32(binary.LittleEndian.Uint32(info[8:12])) != siKernel {
		return false
	}
	var regs syscall.PtraceRegs
	if syscall.PtraceGetRegs(tid, &regs) != nil {
		return false
	}
	at := regs.Rip - 1
	bp, ok := sp.planted[at]
	if !ok {
		if !sp.done[at] {
			return false
		}
	} else {
		if _, err := syscall.PtracePokeData(tid, uintptr(at), []byte{bp.orig}); err != nil {
			t.problem("cannot restore %#x: %v", at, err)
			return false
		}
		for _, l := range bp.lines {
			t.hit[l] = true
		}
		delete(sp.planted, at)
		sp.done[at] = true
	}
	regs.Rip = at
	return syscall.PtraceSetRegs(tid, &regs) == nil
}

// exec gives the process that just exec'd its address space: breakpoints when it runs a watched executable.
func (t *tracer) exec(pid int) {
	sp := &space{planted: map[uint64]*breakpoint{}, done: map[uint64]bool{}}
	t.spaces[pid] = sp
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	id, err := idOf(exe)
	if err != nil || !t.watched[id] {
		return
	}
	table, ok := t.tables[id]
	if !ok {
		table = t.lineTable(exe)
		t.tables[id] = table
	}
	bias, err := loadBias(pid, exe)
	if err != nil {
		t.problem("no load address: %v", err)
		return
	}
	for addr, lines := range table {
		for _, l := range lines {
			t.lines[l] = true
		}
		at := addr + bias
		var orig [1]byte
		if _, err := syscall.PtracePeekData(pid, uintptr(at), orig[:]); err != nil {
			t.problem("cannot read %#x: %v", at, err)
			continue
		}
		if _, err := syscall.PtracePokeData(pid, uintptr(at), []byte{0xCC}); err != nil {
			t.problem("cannot plant %#x: %v", at, err)
			continue
		}
		sp.planted[at] = &breakpoint{orig: orig[0], lines: lines}
		t.planted++
	}
}

// lineTable: every address the line tables give for the watched file's lines in [from, to], relative
// to the executable's link addresses. Only compilation units whose file table names the file are read.
func (t *tracer) lineTable(exe string) map[uint64][]int {
	table := map[uint64][]int{}
	f, err := elf.Open(exe)
	if err != nil {
		t.problem("not an ELF file: %v", err)
		return table
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.problem("no debug information: %v", err)
		return table
	}
	// Only addresses in code the executable holds: a function the linker dropped keeps its line rows,
	// at address 0 or a tombstone (an int3 there would land in the ELF header or nowhere).
	var code [][2]uint64
	for _, sec := range f.Sections {
		if sec.Flags&elf.SHF_EXECINSTR != 0 && sec.Flags&elf.SHF_ALLOC != 0 && sec.Size > 0 {
			code = append(code, [2]uint64{sec.Addr, sec.Addr + sec.Size})
		}
	}
	inCode := func(a uint64) bool {
		for _, c := range code {
			if a >= c[0] && a < c[1] {
				return true
			}
		}
		return false
	}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		r.SkipChildren()
		lr, err := d.LineReader(cu)
		if err != nil || lr == nil || !names(lr.Files(), t.file) {
			continue
		}
		var e dwarf.LineEntry
		for lr.Next(&e) == nil {
			if e.EndSequence || e.File == nil || e.Line < t.from || e.Line > t.to || filepath.Clean(e.File.Name) != t.file || !inCode(e.Address) {
				continue
			}
			if !contains(table[e.Address], e.Line) {
				table[e.Address] = append(table[e.Address], e.Line)
			}
		}
	}
	return table
}

func names(files []*dwarf.LineFile, file string) bool {
	for _, f := range files {
		if f != nil && filepath.Clean(f.Name) == file {
			return true
		}
	}
	return false
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// loadBias: where the executable was mapped against its link addresses (position-independent
// executables load anywhere), from the mapping of its first byte in /proc/<pid>/maps.
func loadBias(pid int, exe string) (uint64, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return 0, nil
	}
	var first uint64 = ^uint64(0)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Vaddr < first {
			first = p.Vaddr &^ 0xfff
		}
	}
	target, err := os.Readlink(exe)
	if err != nil {
		return 0, err
	}
	maps, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(maps), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 6 || fields[2] != "00000000" || strings.Join(fields[5:], " ") != target {
			continue
		}
		start, err := strconv.ParseUint(strings.SplitN(fields[0], "-", 2)[0], 16, 64)
		if err != nil {
			return 0, err
		}
		return start - first, nil
	}
	return 0, fmt.Errorf("%s is not mapped", target)
}
