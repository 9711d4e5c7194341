# debuginfod_lib.sh - sourced by the DWARF tests that fetch by build-id:
# starts Debian's `debuginfod` on a free high loopback port serving one
# directory, waits until it has scanned it, and stops it.
#   dbgd_start DIR WORKDIR   sets DBGD_PORT and DBGD_PID (server log in
#                            WORKDIR/server.log, at most 180 s even if the
#                            caller dies); returns 1 when DIR was not
#                            scanned within 60 s
#   dbgd_stop                stops the server started last (idempotent)

dbgd_start() {
	local dir=$1 work=$2 n
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		DBGD_PORT=$((20000 + RANDOM % 30000))
		(exec 3<>"/dev/tcp/127.0.0.1/$DBGD_PORT") 2>/dev/null || break
	done
	timeout 180 debuginfod -p "$DBGD_PORT" -d "$work/db.sqlite" -F -L --disable-source-scan "$dir" \
		>"$work/server.log" 2>&1 &
	DBGD_PID=$!
	for _ in $(seq 1 120); do
		n=$(curl -s --max-time 2 "http://127.0.0.1:$DBGD_PORT/metrics" |
			sed -n 's/^scanned_files_total{source="file"} //p')
		[ "${n:-0}" -ge 1 ] && return 0
		kill -0 "$DBGD_PID" 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

dbgd_stop() {
	if [ -n "${DBGD_PID:-}" ]; then
		kill "$DBGD_PID" 2>/dev/null
		wait "$DBGD_PID" 2>/dev/null
	fi
	DBGD_PID=
}
