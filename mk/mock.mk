# mk/mock.mk — the mock server's make targets (included by the Makefile).

## interop: install @anthropic-ai/sdk, openai and the Claude Code CLI (npm, interop/node) and run them against the mock
interop: $(GAUNTLET)
	@GAUNTLET=$(GAUNTLET) sh interop/run.sh
