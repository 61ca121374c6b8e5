package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// `bglua completion bash|zsh|fish` writes a shell completion script, made
// from the flags the commands define, so that it cannot miss one.

// subcommands are the words that may follow bglua instead of a program.
var subcommands = []struct{ name, desc string }{
	{"test", "run regression suites"},
	{"sweep", "run a program over ranks, sizes and algorithms"},
	{"help", "help on a topic"},
	{"completion", "a shell completion script"},
	{"editor-setup", "LuaLS definitions for editors"},
	{"version", "the version"},
}

// helpTopics are what `bglua help TOPIC` knows.
var helpTopics = []string{"coll", "test", "sweep", "completion", "editor-setup"}

// flagWords are the values a flag takes from a fixed list; flagFiles the
// flags whose value is a file (listed with their words, if any), flagDirs a
// directory.
var (
	flagWords = map[string]string{
		"mode": "co vn heater", "runtime": "direct bcs", "routing": "deterministic adaptive", "progress-model": "coprocessor inline",
		"machine": "bgl bgc", "mapping": "XYZT TXYZ", "mds": "mmds emds mmds,emds", "output": "text tap",
	}
	flagFiles = map[string]bool{"machine": true, "mapping": true, "trace": true, "stats-json": true, "cpuprofile": true, "memprofile": true, "junit": true, "out": true}
	flagDirs  = map[string]bool{"mds-dir": true}
)

// completion is `bglua completion SHELL`.
func completion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: bglua completion bash|zsh|fish   (a completion script on stdout; docs/cli.md says where to put it)")
		return exitUsage
	}
	runFS, _ := (&runOpts{}).flags(io.Discard, io.Discard)
	testFS, _ := (&testRun{}).flagSet(io.Discard, io.Discard)
	editorFS, _ := editorFlags(io.Discard, io.Discard)
	sweepFS := (&sweepOpts{}).flags(io.Discard, io.Discard)
	switch args[0] {
	case "bash":
		bashCompletion(stdout, runFS, testFS, editorFS, sweepFS)
	case "zsh":
		zshCompletion(stdout, runFS, testFS, editorFS, sweepFS)
	case "fish":
		fishCompletion(stdout, runFS, testFS, editorFS, sweepFS)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, "usage: bglua completion bash|zsh|fish   (a completion script on stdout; docs/cli.md says where to put it)")
	default:
		fmt.Fprintf(stderr, "bglua completion: %q is not bash, zsh or fish\n", args[0])
		return exitUsage
	}
	return exitOK
}

// flagsOf lists the flags of fs, sorted by name.
func flagsOf(fs *pflag.FlagSet) []*pflag.Flag {
	var l []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) { l = append(l, f) })
	sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	return l
}

// takesValue says whether a flag is followed by its value (--ranks 8), not
// alone (--mesh) or with an optional =value (--shuffle).
func takesValue(f *pflag.Flag) bool {
	return f.Value.Type() != "bool" && f.NoOptDefVal == ""
}

// words is the flags of fs as they may be typed: --name, -n.
func words(fs *pflag.FlagSet) string {
	var w []string
	for _, f := range flagsOf(fs) {
		w = append(w, "--"+f.Name)
		if f.Shorthand != "" {
			w = append(w, "-"+f.Shorthand)
		}
	}
	return strings.Join(w, " ")
}

// spellings is the ways a flag is written, for a shell case pattern:
// --name|-name|-n (single-dash long flags work too).
func spellings(f *pflag.Flag) string {
	s := "--" + f.Name + "|-" + f.Name
	if f.Shorthand != "" {
		s += "|-" + f.Shorthand
	}
	return s
}

// shortDesc is the first clause of a flag's usage, for the shells that
// show one.
func shortDesc(f *pflag.Flag) string {
	d, _, _ := strings.Cut(f.Usage, "; ")
	if len(d) > 70 {
		d = d[:strings.LastIndexByte(d[:67], ' ')] + "..."
	}
	return d
}

func bashCompletion(w io.Writer, runFS, testFS, editorFS, sweepFS *pflag.FlagSet) {
	var sub []string
	for _, c := range subcommands {
		sub = append(sub, c.name)
	}
	// The flags that take a value, of every command: their value is not
	// the program.
	valued := map[string]bool{}
	var values []string
	for _, fs := range []*pflag.FlagSet{runFS, testFS, editorFS, sweepFS} {
		for _, f := range flagsOf(fs) {
			if takesValue(f) && !valued[f.Name] {
				valued[f.Name] = true
				values = append(values, spellings(f))
			}
		}
	}
	var valueCases strings.Builder
	for _, fs := range []*pflag.FlagSet{runFS, testFS, sweepFS} {
		for _, f := range flagsOf(fs) {
			if !takesValue(f) || strings.Contains(valueCases.String(), "--"+f.Name+"|") {
				continue
			}
			reply := "return 0" // a free value: nothing to offer
			switch {
			case flagWords[f.Name] != "" && flagFiles[f.Name]:
				reply = fmt.Sprintf(`COMPREPLY=($(compgen -W %q -- "$cur") $(compgen -f -- "$cur")); return 0`, flagWords[f.Name])
			case flagWords[f.Name] != "":
				reply = fmt.Sprintf(`COMPREPLY=($(compgen -W %q -- "$cur")); return 0`, flagWords[f.Name])
			case flagFiles[f.Name]:
				reply = `COMPREPLY=($(compgen -f -- "$cur")); return 0`
			case flagDirs[f.Name]:
				reply = `COMPREPLY=($(compgen -d -- "$cur")); return 0`
			}
			fmt.Fprintf(&valueCases, "        %s) %s ;;\n", spellings(f), reply)
		}
	}
	fmt.Fprintf(w, `# bash completion for bglua: bglua completion bash > /etc/bash_completion.d/bglua
# (or: source <(bglua completion bash) in ~/.bashrc).
_bglua() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local cmd="" i
    # The command: a subcommand, or "run" once the program is named.
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
        %s) ((i++)) ;;
        -*) ;;
        %s) if ((i == 1)); then cmd="${COMP_WORDS[i]}"; else cmd=run; fi; break ;;
        *) cmd=run; break ;;
        esac
    done
    case "$cmd" in
    run) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    version) return 0 ;;
    help) COMPREPLY=($(compgen -W %q -- "$cur")); return 0 ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return 0 ;;
    esac
    case "$prev" in
%s    esac
    case "$cmd" in
    test)
        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W %q -- "$cur")); return 0; fi
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*_test.lua' -- "$cur") $(compgen -f -X '!*_spec.lua' -- "$cur")) ;;
    editor-setup)
        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W %q -- "$cur")); return 0; fi
        COMPREPLY=($(compgen -d -- "$cur")) ;;
    sweep)
        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W %q -- "$cur")); return 0; fi
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.lua' -- "$cur")) ;;
    *)
        if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W %q -- "$cur")); return 0; fi
        COMPREPLY=($(compgen -W %q -- "$cur") $(compgen -d -- "$cur") $(compgen -f -X '!*.lua' -- "$cur")) ;;
    esac
}
complete -o filenames -F _bglua bglua
`, strings.Join(values, "|"), strings.Join(sub, "|"), strings.Join(helpTopics, " "), valueCases.String(),
		words(testFS), words(editorFS), words(sweepFS), words(runFS)+" --help --version", strings.Join(sub, " "))
}

// zshQuote makes s a zsh single-quoted _arguments description.
var zshQuote = strings.NewReplacer(`'`, `'\''`, "[", `\[`, "]", `\]`, ":", `\:`)

// zshSpecs are the _arguments specs of the flags of fs.
func zshSpecs(fs *pflag.FlagSet) string {
	var b strings.Builder
	for _, f := range flagsOf(fs) {
		action := ""
		if takesValue(f) {
			action = ":" + f.Name + ":"
			switch {
			case flagWords[f.Name] != "" && !flagFiles[f.Name]:
				action += "(" + flagWords[f.Name] + ")"
			case flagFiles[f.Name]:
				action += "_files"
			case flagDirs[f.Name]:
				action += "_files -/"
			}
		}
		desc := zshQuote.Replace(shortDesc(f))
		if f.Shorthand != "" {
			fmt.Fprintf(&b, "    '(-%s --%s)'{-%s,--%s}'[%s]%s'\n", f.Shorthand, f.Name, f.Shorthand, f.Name, desc, action)
		} else if f.NoOptDefVal != "" && f.Value.Type() != "bool" {
			fmt.Fprintf(&b, "    '--%s=-[%s]::%s:'\n", f.Name, desc, f.Name)
		} else {
			fmt.Fprintf(&b, "    '--%s[%s]%s'\n", f.Name, desc, action)
		}
	}
	return b.String()
}

func zshCompletion(w io.Writer, runFS, testFS, editorFS, sweepFS *pflag.FlagSet) {
	var sub strings.Builder
	for _, c := range subcommands {
		fmt.Fprintf(&sub, "    '%s:%s'\n", c.name, c.desc)
	}
	fmt.Fprintf(w, `#compdef bglua
# zsh completion for bglua: bglua completion zsh > "${fpath[1]}/_bglua"
# (or: source <(bglua completion zsh) in ~/.zshrc, after compinit).
_bglua() {
  local -a subcommands
  subcommands=(
%s  )
  case "${words[2]}" in
  test)
    _arguments -s \
%s    '*:suite:_files -g "*_(test|spec).lua(-.)"'
    ;;
  editor-setup)
    _arguments -s \
%s    '*:directory:_files -/'
    ;;
  sweep)
    _arguments -s -S \
%s    '2:program:_files -g "*.lua(-.)"' \
    '*::script arguments:_files'
    ;;
  help) _arguments '2:topic:(%s)' ;;
  completion) _arguments '2:shell:(bash zsh fish)' ;;
  version) ;;
  *)
    if (( CURRENT == 2 )) && [[ "${words[CURRENT]}" != -* ]]; then
      _describe -t commands 'bglua command' subcommands
      _files -g '*.lua(-.)'
      return
    fi
    _arguments -s -S \
%s    '1:program:_files -g "*.lua(-.)"' \
    '*::script arguments:_files'
    ;;
  esac
}
if [[ "$funcstack[1]" == _bglua ]]; then
  _bglua "$@"
else
  compdef _bglua bglua
fi
`, sub.String(), lineCont(zshSpecs(testFS)), lineCont(zshSpecs(editorFS)), lineCont(zshSpecs(sweepFS)), strings.Join(helpTopics, " "), lineCont(zshSpecs(runFS)))
}

// lineCont ends every line of specs with a backslash, for a command that
// goes on.
func lineCont(specs string) string {
	return strings.ReplaceAll(specs, "\n", " \\\n")
}

// fishQuote makes s a fish single-quoted string.
var fishQuote = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

func fishCompletion(w io.Writer, runFS, testFS, editorFS, sweepFS *pflag.FlagSet) {
	var names []string
	for _, c := range subcommands {
		names = append(names, c.name)
	}
	all := strings.Join(names, " ")
	fmt.Fprintf(w, "# fish completion for bglua: bglua completion fish > ~/.config/fish/completions/bglua.fish\n")
	fmt.Fprintf(w, "complete -c bglua -f\n")
	for _, c := range subcommands {
		fmt.Fprintf(w, "complete -c bglua -n '__fish_use_subcommand' -a %s -d '%s'\n", c.name, fishQuote.Replace(c.desc))
	}
	fmt.Fprintf(w, "complete -c bglua -n 'not __fish_seen_subcommand_from %s' -a '(__fish_complete_suffix .lua)'\n", all)
	fmt.Fprintf(w, "complete -c bglua -n '__fish_seen_subcommand_from test' -a '(__fish_complete_suffix _test.lua; __fish_complete_suffix _spec.lua; __fish_complete_directories)'\n")
	fmt.Fprintf(w, "complete -c bglua -n '__fish_seen_subcommand_from editor-setup' -a '(__fish_complete_directories)'\n")
	fmt.Fprintf(w, "complete -c bglua -n '__fish_seen_subcommand_from sweep' -a '(__fish_complete_suffix .lua)'\n")
	fmt.Fprintf(w, "complete -c bglua -n '__fish_seen_subcommand_from help' -a '%s'\n", strings.Join(helpTopics, " "))
	fmt.Fprintf(w, "complete -c bglua -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, g := range []struct {
		cond string
		fs   *pflag.FlagSet
	}{
		{"not __fish_seen_subcommand_from " + all, runFS},
		{"__fish_seen_subcommand_from test", testFS},
		{"__fish_seen_subcommand_from editor-setup", editorFS},
		{"__fish_seen_subcommand_from sweep", sweepFS},
	} {
		for _, f := range flagsOf(g.fs) {
			line := fmt.Sprintf("complete -c bglua -n '%s' -l %s", g.cond, f.Name)
			if f.Shorthand != "" {
				line += " -s " + f.Shorthand
			}
			if takesValue(f) {
				switch {
				case flagFiles[f.Name]:
					line += " -r -F"
				case flagDirs[f.Name]:
					line += " -x -a '(__fish_complete_directories)'"
				default:
					line += " -x"
				}
				if flagWords[f.Name] != "" {
					line += " -a '" + flagWords[f.Name] + "'"
				}
			}
			fmt.Fprintf(w, "%s -d '%s'\n", line, fishQuote.Replace(shortDesc(f)))
		}
	}
}
