"""What ck3raven knows of Crusader Kings III: mod descriptors, the launcher's playsets, the merged view of a
playset, and the game's rules for the files it loads."""
