name="Unused Mod"
