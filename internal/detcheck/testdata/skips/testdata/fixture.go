package fixture

func Uses() { go Uses() }
