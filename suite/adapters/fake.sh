#!/bin/sh
# A scriptable misbehaving adapter for suite/test_adapter.c.
# $1 = behaviour: ok | crash | hang | garbage | partial | huge | badhello | wrongseq | errored | skipped | slowhello | crashonce
#      | noverdict | erroredaftersmoke (the smoke case accepted, every other case errored)
#      | deepN (an accepted value N levels deep in the reply) | hugefigures (accounting figures of 1e300)
#      | leaky (starts a setsid() sleeper and a double-forked one, then behaves as ok)
#      | slowrestart (every case crashes; every start after the first takes 30 s to say hello)
#      | closeout (closes its stdout at the first case and keeps running)
# Capabilities: syntax only (so loop cases are skipped).
mode=$1
state=${2:-/dev/null}
read -r hello || exit 0
case "$mode" in
    badhello) echo 'hello yourself'; exit 0 ;;
    slowhello) sleep 30 ;;
    slowrestart)
        if [ -f "$state" ]; then sleep 30; fi
        : > "$state" ;;
    leaky)
        setsid sh -c 'sleep 300' </dev/null >/dev/null 2>&1 &
        ( sh -c 'sleep 300' </dev/null >/dev/null 2>&1 & ) ;;
esac
echo '{"protocol":1,"implementation":{"name":"fake","version":"'"$mode"'"},"capabilities":["syntax"]}'
n=0
while read -r line; do
    n=$((n + 1))
    case "$line" in *'"cmd":"stop"'*) exit 0 ;; esac
    seq=$(printf '%s' "$line" | sed -E 's/.*"seq":([0-9]+).*/\1/')
    case "$mode" in
        ok|leaky) echo '{"seq":'"$seq"',"verdict":"accept"}' ;;
        crash) echo "about to crash on case $n" >&2; kill -SEGV $$ ;;
        crashonce)
            if [ ! -f "$state" ]; then : > "$state"; echo "first run crashes" >&2; exit 3; fi
            echo '{"seq":'"$seq"',"verdict":"accept"}' ;;
        hang) sleep 30 ;;
        slowrestart) exit 3 ;;
        closeout) exec >&-; sleep 30 ;;
        garbage) echo 'Traceback (most recent call last): oops' ;;
        partial) printf '{"seq":%s,"verdict":"acc' "$seq"; sleep 30 ;;
        huge) head -c 70000000 /dev/zero | tr '\0' 'x'; echo ;;
        wrongseq) echo '{"seq":999999,"verdict":"accept"}' ;;
        errored) echo '{"seq":'"$seq"',"errored":true,"message":"validator raised KeyError"}' ;;
        skipped) echo '{"seq":'"$seq"',"skipped":true,"message":"not implemented"}' ;;
        noverdict) echo '{"seq":'"$seq"'}' ;;
        erroredaftersmoke)
            case "$line" in
                *'"id":"smoke.'*) echo '{"seq":'"$seq"',"verdict":"accept"}' ;;
                *) echo '{"seq":'"$seq"',"errored":true,"message":"validator raised KeyError"}' ;;
            esac ;;
        hugefigures) echo '{"seq":'"$seq"',"verdict":"accept","accounting":{"attempts_used":1e300,"model_calls":-1e300,"retracted":2147483648}}' ;;
        deep*) # an accepted value nested ${mode#deep} levels inside the reply's "output"
            awk -v seq="$seq" -v depth="${mode#deep}" 'BEGIN {
                printf "{\"seq\":%s,\"verdict\":\"accept\",\"output\":", seq
                for (i = 0; i < depth; i++) printf "["
                for (i = 0; i < depth; i++) printf "]"
                print "}" }' ;;
    esac
done
