// Command checker reads a history of register operations (JSON lines, as labkit's recorder writes them) and says
// whether it is linearizable, with Porcupine (github.com/anishathalye/porcupine), per key, writing Porcupine's
// page of the history and its linearizations when asked.
//
// Why a separate command: Porcupine is a Go library; labkit builds this once from the Go module proxy and calls it
// from Python (labkit.consistency.checker.check_history).
//
// Each line: {"process": 0, "key": "k1", "op": "read"|"write"|"cas", "value": 3, "expected": 2, "new": 3,
// "result": 3 (a read's value, null when absent; a cas's applied), "outcome": "ok"|"fail"|"unknown",
// "call": ns, "return": ns}. A failed operation took no effect and is left out; an unknown one (a timeout) may
// have taken effect at any time after its call, so a write or cas is kept with no return (it can be placed
// last, which is "never applied") and an unknown read, which constrains nothing, is left out.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
)

type line struct {
	Process  int             `json:"process"`
	Key      string          `json:"key"`
	Op       string          `json:"op"`
	Value    *int64          `json:"value"`
	Expected json.RawMessage `json:"expected"` // null: only when absent; missing: an error
	New      *int64          `json:"new"`
	Result   any             `json:"result"`
	Outcome  string          `json:"outcome"`
	Call     int64           `json:"call"`
	Return   *int64          `json:"return"`
	Index    int             `json:"-"`
}

type input struct {
	Op       string
	Key      string
	Value    int64 // write: the value; cas: the new value
	Expected int64
	Absent   bool // cas: expects no value (IF NOT EXISTS)
	Index    int  // the line's number in the history (0-based)
}

type output struct {
	Known   bool // false: an unknown outcome (a timeout)
	Present bool // read: a value was found
	Value   int64
	Applied bool // cas
}

type state struct {
	Set   bool
	Value int64
}

func describe(v state) string {
	if !v.Set {
		return "(none)"
	}
	return fmt.Sprint(v.Value)
}

func model() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range history {
				k := op.Input.(input).Key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Strings(keys)
			parts := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				parts = append(parts, byKey[k])
			}
			return parts
		},
		Init: func() any { return state{} },
		Step: func(s, in, out any) (bool, any) {
			st, i, o := s.(state), in.(input), out.(output)
			switch i.Op {
			case "read":
				if !o.Known {
					return true, st
				}
				return o.Present == st.Set && (!st.Set || o.Value == st.Value), st
			case "write":
				return true, state{Set: true, Value: i.Value}
			case "cas":
				matches := (i.Absent && !st.Set) || (!i.Absent && st.Set && st.Value == i.Expected)
				if !o.Known {
					if matches {
						return true, state{Set: true, Value: i.Value}
					}
					return true, st
				}
				if matches != o.Applied {
					return false, st
				}
				if matches {
					return true, state{Set: true, Value: i.Value}
				}
				return true, st
			}
			return false, st
		},
		DescribeOperation: func(in, out any) string {
			i, o := in.(input), out.(output)
			switch i.Op {
			case "read":
				if !o.Known {
					return fmt.Sprintf("read %s -> ?", i.Key)
				}
				if !o.Present {
					return fmt.Sprintf("read %s -> (none)", i.Key)
				}
				return fmt.Sprintf("read %s -> %d", i.Key, o.Value)
			case "write":
				return fmt.Sprintf("write %s := %d%s", i.Key, i.Value, map[bool]string{true: "", false: " (unknown)"}[o.Known])
			default:
				from := fmt.Sprint(i.Expected)
				if i.Absent {
					from = "(none)"
				}
				result := "?"
				if o.Known {
					result = fmt.Sprint(o.Applied)
				}
				return fmt.Sprintf("cas %s %s -> %d: %s", i.Key, from, i.Value, result)
			}
		},
		DescribeState: func(s any) string { return describe(s.(state)) },
	}
}

// blockingOperation is where the search got stuck: among the longest partial linearizations, the operation outside
// one with the earliest return (the return event no order could get past), ties broken by the earliest return and
// then the line, so the same history always names the same operation. It returns that prefix's length too.
func blockingOperation(info porcupine.LinearizationInfo, part []porcupine.Operation) (int, porcupine.Operation) {
	longest := 0
	var best *porcupine.Operation
	for _, partition := range info.PartialLinearizationsOperations() {
		for _, lin := range partition {
			if len(lin) < longest {
				continue
			}
			placed := map[int]bool{}
			for _, op := range lin {
				placed[op.Input.(input).Index] = true
			}
			var first *porcupine.Operation
			for i := range part {
				op := &part[i]
				if placed[op.Input.(input).Index] {
					continue
				}
				if first == nil || op.Return < first.Return || (op.Return == first.Return && op.Input.(input).Index < first.Input.(input).Index) {
					first = op
				}
			}
			if first == nil {
				continue
			}
			earlier := best == nil || len(lin) > longest || first.Return < best.Return ||
				(first.Return == best.Return && first.Input.(input).Index < best.Input.(input).Index)
			if earlier {
				longest, best = len(lin), first
			}
		}
	}
	if best == nil { // no partial linearization recorded: the first operation to return
		sorted := append([]porcupine.Operation(nil), part...)
		sort.Slice(sorted, func(a, b int) bool { return sorted[a].Return < sorted[b].Return })
		return 0, sorted[0]
	}
	return longest, *best
}

// operations turns the history's lines into Porcupine's operations; `dropped` counts what was left out and why.
func operations(lines []line, withCas bool) ([]porcupine.Operation, map[string]int, error) {
	var ops []porcupine.Operation
	dropped := map[string]int{}
	for _, l := range lines {
		if l.Op != "read" && l.Op != "write" && l.Op != "cas" {
			return nil, nil, fmt.Errorf("line %d: op must be read, write or cas (got %q)", l.Index+1, l.Op)
		}
		if l.Op == "cas" && !withCas {
			return nil, nil, fmt.Errorf("line %d: a cas in a history checked against the plain register model (use -model cas-register)", l.Index+1)
		}
		if l.Outcome == "fail" {
			dropped["failed (took no effect)"]++
			continue
		}
		if l.Outcome != "ok" && l.Outcome != "unknown" {
			return nil, nil, fmt.Errorf("line %d: outcome must be ok, fail or unknown (got %q)", l.Index+1, l.Outcome)
		}
		known := l.Outcome == "ok"
		if !known && l.Op == "read" {
			dropped["unknown reads (constrain nothing)"]++
			continue
		}
		in := input{Op: l.Op, Key: l.Key, Index: l.Index}
		out := output{Known: known}
		switch l.Op {
		case "write":
			if l.Value == nil {
				return nil, nil, fmt.Errorf("line %d: a write needs a value", l.Index+1)
			}
			in.Value = *l.Value
		case "cas":
			if l.New == nil {
				return nil, nil, fmt.Errorf("line %d: a cas needs new", l.Index+1)
			}
			in.Value = *l.New
			switch string(l.Expected) {
			case "":
				return nil, nil, fmt.Errorf("line %d: a cas needs expected (null: only when absent)", l.Index+1)
			case "null":
				in.Absent = true
			default:
				if err := json.Unmarshal(l.Expected, &in.Expected); err != nil {
					return nil, nil, fmt.Errorf("line %d: a cas's expected is a whole number or null", l.Index+1)
				}
			}
			if known {
				applied, ok := l.Result.(bool)
				if !ok {
					return nil, nil, fmt.Errorf("line %d: a completed cas's result is true or false", l.Index+1)
				}
				out.Applied = applied
			}
		case "read":
			switch r := l.Result.(type) {
			case nil:
			case json.Number:
				value, err := r.Int64() // exact: a float or a number past int64 is refused, not rounded
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: a read's result is a whole number or null (got %s)", l.Index+1, r)
				}
				out.Present, out.Value = true, value
			default:
				return nil, nil, fmt.Errorf("line %d: a read's result is a whole number or null", l.Index+1)
			}
		}
		ret := int64(math.MaxInt64) // unknown: it may take effect at any time after its call
		if known {
			if l.Return == nil || *l.Return < l.Call {
				return nil, nil, fmt.Errorf("line %d: a completed operation needs a return at or after its call", l.Index+1)
			}
			ret = *l.Return
		}
		ops = append(ops, porcupine.Operation{ClientId: l.Process, Input: in, Call: l.Call, Output: out, Return: ret})
	}
	return ops, dropped, nil
}

type keyResult struct {
	Key        string   `json:"key"`
	Result     string   `json:"result"`
	Operations int      `json:"operations"`
	Prefix     int      `json:"prefix,omitempty"`   // operations in the longest linearizable prefix the search found
	Unplaced   []string `json:"unplaced,omitempty"` // the operation that prefix cannot be extended past
	Lines      []int    `json:"lines,omitempty"`    // its line number in the history (1-based)
}

type verdict struct {
	Linearizable bool           `json:"linearizable"`
	Result       string         `json:"result"`
	Operations   int            `json:"operations"`
	Dropped      map[string]int `json:"dropped"`
	Keys         []keyResult    `json:"keys"`
	FailingKey   string         `json:"failing_key,omitempty"`
	Page         string         `json:"page,omitempty"`
}

func main() {
	historyPath := flag.String("history", "", "the history, JSON lines")
	modelName := flag.String("model", "cas-register", "register (reads and writes) or cas-register (reads, writes and compare-and-set)")
	page := flag.String("page", "", "write Porcupine's HTML page of the history here")
	timeout := flag.Duration("timeout", 30*time.Second, "give up (result Unknown) after this long")
	flag.Parse()
	if *modelName != "register" && *modelName != "cas-register" {
		fail(fmt.Errorf("-model must be register or cas-register (got %q)", *modelName))
	}
	f, err := os.Open(*historyPath)
	if err != nil {
		fail(err)
	}
	var lines []line
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 0; scanner.Scan(); n++ {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var l line
		decoder := json.NewDecoder(bytes.NewReader(scanner.Bytes()))
		decoder.UseNumber() // a read's value exactly, not through float64
		if err := decoder.Decode(&l); err != nil {
			fail(fmt.Errorf("line %d: %v", n+1, err))
		}
		l.Index = n
		lines = append(lines, l)
	}
	if err := scanner.Err(); err != nil {
		fail(err)
	}
	withCas := *modelName == "cas-register"
	ops, dropped, err := operations(lines, withCas)
	if err != nil {
		fail(err)
	}
	m := model()
	v := verdict{Linearizable: true, Result: string(porcupine.Ok), Operations: len(ops), Dropped: dropped}
	smallest := -1
	for _, part := range m.Partition(ops) { // linearizability is local: each key on its own, once
		kr := keyResult{Key: part[0].Input.(input).Key, Operations: len(part)}
		result, info := porcupine.CheckOperationsVerbose(m, part, *timeout)
		kr.Result = string(result)
		switch result {
		case porcupine.Illegal:
			prefix, blocking := blockingOperation(info, part)
			kr.Prefix = prefix
			kr.Unplaced = []string{m.DescribeOperation(blocking.Input, blocking.Output)}
			kr.Lines = []int{blocking.Input.(input).Index + 1}
			if smallest < 0 || len(part) < v.Keys[smallest].Operations {
				smallest = len(v.Keys)
			}
			v.Linearizable, v.Result = false, string(porcupine.Illegal)
		case porcupine.Unknown:
			if v.Result == string(porcupine.Ok) {
				v.Linearizable, v.Result = false, string(porcupine.Unknown)
			}
		}
		v.Keys = append(v.Keys, kr)
	}
	if smallest >= 0 {
		v.FailingKey = v.Keys[smallest].Key
	}
	if *page != "" { // the page draws every key: one more check of the whole history, for its linearizations
		_, info := porcupine.CheckOperationsVerbose(m, ops, *timeout)
		if err := porcupine.VisualizePath(m, info, *page); err != nil {
			fail(err)
		}
		v.Page = *page
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(v); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "checker:", err)
	os.Exit(2)
}
