/** Solidity sources shared by tests. */
export const TOKEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import "@openzeppelin/contracts/access/Ownable.sol";

contract Token is ERC20, Ownable {
    error NotEnough(uint256 wanted, uint256 available);

    constructor(uint256 supply) ERC20("Test Token", "TST") Ownable(msg.sender) {
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }

    function burnExactly(uint256 amount) external {
        if (balanceOf(msg.sender) < amount) revert NotEnough(amount, balanceOf(msg.sender));
        _burn(msg.sender, amount);
    }
}
`;

export const COUNTER_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Counter {
    uint256 public count;
    event Incremented(address indexed by, uint256 count);

    function increment() external {
        count += 1;
        emit Incremented(msg.sender, count);
    }
}
`;

export const PICKY_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Picky {
    error TooSmall(uint256 given, uint256 minimum);
    uint256 public value;

    constructor(uint256 x, string memory label) {
        require(bytes(label).length > 0, "label must not be empty");
        if (x <= 10) revert TooSmall(x, 11);
        value = x;
    }
}
`;
