# retsnoop.bash - bash completion for retsnoop, retsnoop-record and
# retsnoop-report: flags, -c preset names, -C setting keys, errno names for
# -x/-X, report subcommands, files for -o/-k/--perfetto and recordings, the
# command after "--", and kernel function names for -e/-a/-d when the
# traceable list is readable. Installed by `make install` as
# $(PREFIX)/share/bash-completion/completions/retsnoop (the other two names
# are symlinks to it); or source it from ~/.bashrc. Needs no other package.
# tests/cli/completion.sh checks it against --help and record/presets.c.

_retsnoop_record_flags="-e --entry -a --allow -d --deny -c --case -k --kernel
	-M --kprobes-multi -K --kprobes -F --fentries -E --call-stack -T --trace
	-S --success-stacks -I --interim-stacks -A --capture-args -J --inject-probe -B --lbr -R
	-U --user-stacks -p --pid -P --no-pid
	-n --comm -N --no-comm -x --allow-errors -X --deny-errors -L --longer
	-o --output --max-size --duration --stop-after -C --config --config-help
	--dry-run -v --verbose -V --version
	-h --help --usage --"
_retsnoop_live_flags="$_retsnoop_record_flags -s --symbolize --lbr-max-count
	--allow-build-id-mismatch --stack-has --format --perfetto --folded
	--folded-weight --summary --symfs"
_retsnoop_report_flags="-T --trace -E --call-stack -B --lbr --success-only
	--errors-only --stack-has --entry --since --until --format --perfetto --folded
	--folded-weight --summary -p --pid -P --no-pid -n --comm -N --no-comm -x
	--allow-errors -X --deny-errors -L --longer -S --success-stacks -s --symbolize
	--allow-build-id-mismatch --lbr-max-count -k --kernel -C --config --config-help
	-v --verbose -V --version -h --help --usage --symfs"
_retsnoop_info_flags="-v --verbose -V --version -h --help --usage"
_retsnoop_report_subcommands="info summary addr2line diff"
_retsnoop_diff_flags="--format $_retsnoop_info_flags"
_retsnoop_addr2line_flags="-e -i --inlines --dwarf-names --no-cache -v --verbose
	-V --version -h --help --usage"
_retsnoop_presets="bpf perf"
_retsnoop_record_keys="bpf.ringbuf-size= bpf.sessions-size= bpf.defer-stacks= bpf.kprobe-session= bpf.rdonly-cast= bpf.lean= bpf.max-depth=
	args.max-total-args-size= args.max-sized-arg-size= args.max-str-arg-size=
	args.capture-raw-ptrs= user.stack-size="
_retsnoop_report_keys="stacks.symb-mode= stacks.unfiltered= stacks.emit-addrs=
	stacks.dec-offs= fmt.lbr-max-count= args.fmt-mode= args.fmt-max-arg-width="
_retsnoop_errnos="NULL any EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF
	ECHILD EAGAIN ENOMEM EACCES EFAULT ENOTBLK EBUSY EEXIST EXDEV ENODEV ENOTDIR
	EISDIR EINVAL ENFILE EMFILE ENOTTY ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK
	EPIPE EDOM ERANGE EDEADLK ENAMETOOLONG ENOLCK ENOSYS ENOTEMPTY ELOOP ENOMSG
	EIDRM ENODATA ETIME EPROTO EBADMSG EOVERFLOW EBADFD EILSEQ ENOTSOCK EMSGSIZE
	EOPNOTSUPP EAFNOSUPPORT EADDRINUSE EADDRNOTAVAIL ENETDOWN ENETUNREACH
	ECONNABORTED ECONNRESET ENOBUFS EISCONN ENOTCONN ETIMEDOUT ECONNREFUSED
	EHOSTUNREACH EALREADY EINPROGRESS ESTALE EDQUOT ECANCELED ENOKEY EOWNERDEAD
	ENOTRECOVERABLE ERFKILL EHWPOISON ERESTARTSYS ENOIOCTLCMD ENOTSUPP ETOOSMALL"
_retsnoop_lbr_flags="any_return any any_call cond call ind_call ind_jump
	call_stack abort_tx in_tx no_tx"

# words matching the current word; $1: the candidates
_retsnoop_words() {
	local IFS=$' \t\n'
	# shellcheck disable=SC2207
	COMPREPLY=($(compgen -W "$1" -- "$cur"))
}

_retsnoop_files() {
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	# shellcheck disable=SC2207
	COMPREPLY=($(compgen -f -- "$cur"))
}

# kernel functions, for -e/-a/-d, when this user can read the traceable list
_retsnoop_functions() {
	local f
	for f in /sys/kernel/tracing/available_filter_functions \
		 /sys/kernel/debug/tracing/available_filter_functions; do
		if [ -r "$f" ]; then
			local IFS=$'\n'
			# shellcheck disable=SC2207
			COMPREPLY=($(awk -v p="$cur" 'index($1, p) == 1 { print $1 }' "$f" 2>/dev/null | sort -u))
			return
		fi
	done
	COMPREPLY=()
}

# -J specs: the kinds, then kprobe:/kretprobe: functions and tp:
# tracepoints when this user can read the traceable lists
_retsnoop_probes() {
	local kind=${cur%%:*} f
	compopt -o nospace 2>/dev/null
	case $cur in
	kprobe:*|kretprobe:*)
		local saved=$cur
		cur=${cur#*:}
		_retsnoop_functions
		cur=$saved
		local IFS=$'\n'
		# shellcheck disable=SC2207
		COMPREPLY=($(printf '%s\n' "${COMPREPLY[@]}" | sed "s/^/$kind:/"))
		return ;;
	tp:*)
		for f in /sys/kernel/tracing/available_events /sys/kernel/debug/tracing/available_events; do
			if [ -r "$f" ]; then
				local IFS=$'\n'
				# shellcheck disable=SC2207
				COMPREPLY=($(awk -v p="${cur#tp:}" 'index($1, p) == 1 { print "tp:" $1 }' "$f" 2>/dev/null))
				return
			fi
		done
		return ;;
	esac
	_retsnoop_words "kprobe: kretprobe: rawtp: tp:"
}

# does this report (or addr2line) option take the next word as its value?
_retsnoop_report_value() {
	case $1 in
	-k|--kernel|-C|--config|-p|--pid|-P|--no-pid|-n|--comm|-N|--no-comm|-x|\
	--allow-errors|-X|--deny-errors|-L|--longer|--lbr-max-count|--stack-has|\
	--entry|--since|--until|--format|--perfetto|--folded-weight|-e|--symfs) return 0 ;;
	esac
	return 1
}

_retsnoop() {
	local cmd=${COMP_WORDS[0]##*/} cur=${COMP_WORDS[COMP_CWORD]} prev="" i
	local flags keys opt
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# --opt=value: bash splits at '=' (COMP_WORDBREAKS), prev is then "="
	if [ "$cur" = "=" ]; then
		opt=$prev cur=""
	elif [ "$prev" = "=" ] && ((COMP_CWORD > 1)); then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	else
		opt=$prev
	fi

	case $cmd in
	retsnoop-report)
		# the subcommand is the first word that is not an option (global
		# options may come before it)
		local sub="" w
		for ((i = 1; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			if _retsnoop_report_value "$w"; then ((i++)); continue; fi
			case $w in -*|=) continue ;; esac
			sub=$w
			break
		done
		if [ -z "$sub" ] && [[ $cur != -* ]] && ! _retsnoop_report_value "$opt"; then
			_retsnoop_words "$_retsnoop_report_subcommands"
			local saved=("${COMPREPLY[@]}")
			_retsnoop_files
			COMPREPLY=("${saved[@]}" "${COMPREPLY[@]}")
			return
		fi
		if [ "$sub" = addr2line ]; then
			case $opt in -e) _retsnoop_files; return ;; esac
			_retsnoop_words "$_retsnoop_addr2line_flags"
			return
		fi
		if [ "$sub" = info ]; then
			if [[ $cur == -* ]]; then _retsnoop_words "$_retsnoop_info_flags"; else _retsnoop_files; fi
			return
		fi
		if [ "$sub" = diff ]; then
			case $opt in --format) _retsnoop_words "text json"; return ;; esac
			case $cur in -*) _retsnoop_words "$_retsnoop_diff_flags"; return ;; esac
			_retsnoop_files
			return
		fi
		flags=$_retsnoop_report_flags keys=$_retsnoop_report_keys ;;
	retsnoop-record)
		flags=$_retsnoop_record_flags keys=$_retsnoop_record_keys ;;
	*)
		flags=$_retsnoop_live_flags keys="$_retsnoop_record_keys $_retsnoop_report_keys" ;;
	esac

	# after "--": the command, then its arguments (files)
	if [ "$cmd" != retsnoop-report ]; then
		for ((i = 1; i < COMP_CWORD; i++)); do
			if [ "${COMP_WORDS[i]}" = "--" ]; then
				if ((i == COMP_CWORD - 1)); then
					local IFS=$'\n'
					# shellcheck disable=SC2207
					COMPREPLY=($(compgen -c -- "$cur"))
				else
					_retsnoop_files
				fi
				return
			fi
		done
	fi

	case $opt in
	-o|--output|-k|--kernel|--perfetto)
		_retsnoop_files; return ;;
	--symfs)
		local IFS=$'\n'
		compopt -o filenames 2>/dev/null
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	-c|--case)
		_retsnoop_words "$_retsnoop_presets"; return ;;
	-C|--config)
		compopt -o nospace 2>/dev/null
		_retsnoop_words "$keys"; return ;;
	-x|-X|--allow-errors|--deny-errors)
		_retsnoop_words "$_retsnoop_errnos"; return ;;
	-e|-a|-d|--entry|--allow|--deny|--stack-has)
		[ "$cmd" = retsnoop-report ] && return
		_retsnoop_functions; return ;;
	-J|--inject-probe)
		[ "$cmd" = retsnoop-report ] && return
		_retsnoop_probes; return ;;
	-p|-P|--pid|--no-pid)
		local IFS=$'\n'
		# shellcheck disable=SC2207
		COMPREPLY=($(cd /proc 2>/dev/null && compgen -G '[1-9]*' -- "$cur" | grep -E '^[0-9]+$'))
		return ;;
	-n|-N|--comm|--no-comm|-L|--longer|--lbr-max-count|--since|--until)
		return ;;   # free-form values
	--format)
		_retsnoop_words "text json"; return ;;
	--folded-weight)
		_retsnoop_words "count latency"; return ;;
	--symbolize)
		_retsnoop_words "none linenum inlines"; return ;;
	--lbr)
		_retsnoop_words "$_retsnoop_lbr_flags"; return ;;
	--success-stacks)
		_retsnoop_words "y n"; return ;;
	esac

	if [[ $cur == -* ]]; then
		_retsnoop_words "$flags"
	elif [ "$cmd" = retsnoop-report ]; then
		_retsnoop_files   # the recording
	fi
}

complete -F _retsnoop retsnoop retsnoop-record retsnoop-report
