# mk/mock.mk — the mock server's make targets (included by the Makefile).

## interop: npm ci the pinned @anthropic-ai/sdk, openai and Claude Code CLI (interop/node), run them against the mock, compare with interop/expected.jsonl
interop: $(GAUNTLET)
	@GAUNTLET=$(GAUNTLET) sh interop/run.sh
