# metaschemas.mk — embed the official JSON Schema metaschemas into libgauntlet.
# The files come from Debian's python3-jsonschema at build time; the generated
# C lives in $(BUILD)/gen and is never committed.
# mk files are included before `all:`; keep `all` the default goal.
.DEFAULT_GOAL := all

METASCHEMA_DIR   ?= /usr/lib/python3/dist-packages/jsonschema/schemas
METASCHEMA_FILES := $(addprefix $(METASCHEMA_DIR)/,draft4.json draft6.json draft7.json draft2019-09.json draft2020-12.json vocabularies.json)

GEN_SRC += $(BUILD)/gen/metaschemas.c

$(BUILD)/gen/embed-metaschemas: scripts/embed-metaschemas.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -o $@ $<

$(BUILD)/gen/metaschemas.c: $(BUILD)/gen/embed-metaschemas $(METASCHEMA_FILES)
	$(BUILD)/gen/embed-metaschemas $@ $(METASCHEMA_FILES)
