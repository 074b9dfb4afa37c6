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

/** Functions returning and taking every common ABI type, plus overloads and a payable function. */
export const KITCHEN_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Kitchen {
    struct Order { address buyer; uint256[] amounts; bytes32 ref; }
    uint256 public stored;
    string public label;

    function negative() external pure returns (int256) { return -123456789012345678901234567890; }
    function maxUint() external pure returns (uint256) { return type(uint256).max; }
    function minInt() external pure returns (int256) { return type(int256).min; }
    function hash() external pure returns (bytes32) { return keccak256("kitchen"); }
    function blob() external pure returns (bytes memory) { return hex"deadbeef"; }
    function who() external view returns (address) { return msg.sender; }
    function flag() external pure returns (bool) { return true; }
    function pair() external pure returns (uint256 count, string memory name) { return (7, "seven"); }
    function unnamed() external pure returns (uint8, bool) { return (1, false); }
    function fixedArr() external pure returns (uint16[3] memory a) { a[0] = 1; a[1] = 2; a[2] = 3; }
    function order() external view returns (Order memory o) {
        o.buyer = address(this);
        o.amounts = new uint256[](2);
        o.amounts[0] = 1;
        o.amounts[1] = 2**200;
        o.ref = bytes32(uint256(42));
    }
    function echo(Order calldata o, int8 small, bytes4 tag, string[] calldata words) external pure
        returns (Order memory, int8, bytes4, string[] memory) { return (o, small, tag, words); }
    function set(uint256 v) external { stored = v; }
    function set(string calldata v) external { label = v; }
    function pay() external payable { stored = msg.value; }
    function checked(uint256 x) external pure returns (uint256) { require(x > 1, "x must exceed 1"); return 100 / (x - 2); }
}
`;

/** once() succeeds one time: two concurrent invokes both pass the simulation and one reverts when mined. */
export const ONCE_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Once {
    bool public done;
    uint256 public count;

    function bump() external {
        count += 1;
    }

    function once() external {
        require(!done, "already done");
        done = true;
    }
}
`;
