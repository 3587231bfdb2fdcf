name="Not In Playset"
