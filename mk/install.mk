# mk/install.mk — `make install`: an installed gauntlet works on its own.
# The binary, one library (static and shared, with a soname) holding every
# function the installed headers declare, the headers, gauntlet.pc and
# gauntlet-static.pc (the same with libgauntlet.a), the
# corpus (share/gauntlet/corpus, where the binary looks for it), a man page
# per command and bash/zsh completion generated from the help texts
# (runner/cli/cmd_help.c). scripts/test-install.sh (run by make test) installs
# into a temporary DESTDIR and uses only the installed tree.
MAN_DIR := $(BUILD)/man
DESTROOT = $(DESTDIR)$(PREFIX)

.PHONY: man uninstall
## man: a man page per command, generated from the help texts, into build/man
man: $(BUILD)/gauntlet
	@mkdir -p $(MAN_DIR)
	$(BUILD)/gauntlet help --man > $(MAN_DIR)/gauntlet.1
	@for c in $$($(BUILD)/gauntlet help --commands); do \
	    $(BUILD)/gauntlet help --man $$c > $(MAN_DIR)/gauntlet-$$c.1 || exit 1; done

## install: binary, libgauntlet (.a and .so), headers, gauntlet.pc, gauntlet-static.pc, corpus, man pages, completion under DESTDIR/PREFIX
install: all $(DIST_LIB) $(SHARED_LIB) man
	install -d $(DESTROOT)/bin $(DESTROOT)/lib/pkgconfig $(DESTROOT)/include/gauntlet/runner \
	    $(DESTROOT)/share/gauntlet $(DESTROOT)/share/man/man1 \
	    $(DESTROOT)/share/bash-completion/completions $(DESTROOT)/share/zsh/site-functions
	install -m 755 $(BUILD)/gauntlet $(DESTROOT)/bin/gauntlet
	install -m 644 $(DIST_LIB) $(DESTROOT)/lib/libgauntlet.a
	install -m 755 $(SHARED_LIB) $(DESTROOT)/lib/libgauntlet.so.$(VERSION)
	ln -sf libgauntlet.so.$(VERSION) $(DESTROOT)/lib/libgauntlet.so.$(SOVERSION)
	ln -sf libgauntlet.so.$(SOVERSION) $(DESTROOT)/lib/libgauntlet.so
	install -m 644 include/gauntlet/*.h $(DESTROOT)/include/gauntlet/
	install -m 644 include/gauntlet/runner/*.h $(DESTROOT)/include/gauntlet/runner/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' gauntlet.pc.in > $(DESTROOT)/lib/pkgconfig/gauntlet.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' gauntlet-static.pc.in > $(DESTROOT)/lib/pkgconfig/gauntlet-static.pc
	rm -rf $(DESTROOT)/share/gauntlet/corpus
	cp -R corpus $(DESTROOT)/share/gauntlet/corpus
	chmod -R u=rwX,go=rX $(DESTROOT)/share/gauntlet/corpus
	install -m 644 $(MAN_DIR)/*.1 $(DESTROOT)/share/man/man1/
	$(BUILD)/gauntlet completion bash > $(DESTROOT)/share/bash-completion/completions/gauntlet
	$(BUILD)/gauntlet completion zsh > $(DESTROOT)/share/zsh/site-functions/_gauntlet

## uninstall: remove what install put under DESTDIR/PREFIX
uninstall:
	rm -f $(DESTROOT)/bin/gauntlet $(DESTROOT)/lib/libgauntlet.a $(DESTROOT)/lib/libgauntlet.so*
	rm -f $(DESTROOT)/lib/pkgconfig/gauntlet.pc $(DESTROOT)/lib/pkgconfig/gauntlet-static.pc $(DESTROOT)/share/man/man1/gauntlet.1 $(DESTROOT)/share/man/man1/gauntlet-*.1
	rm -f $(DESTROOT)/share/bash-completion/completions/gauntlet $(DESTROOT)/share/zsh/site-functions/_gauntlet
	rm -rf $(DESTROOT)/include/gauntlet $(DESTROOT)/share/gauntlet
