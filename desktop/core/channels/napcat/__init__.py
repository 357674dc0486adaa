"""QQ through NapCat (OneBot v11)."""
