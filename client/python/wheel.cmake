# Builds the wheel from the staged package (cmake -P; see CMakeLists.txt):
# offline, without build isolation, on the Python given. Old wheels and
# setuptools' build/ tree go first, so a file removed from the package
# cannot linger in the next wheel.
file(GLOB old ${DIST}/linkage-*.whl)
file(REMOVE_RECURSE ${old} ${STAGE}/build ${STAGE}/linkage.egg-info)
execute_process(
  COMMAND ${PYTHON} -m pip wheel --no-deps --no-build-isolation --no-index --disable-pip-version-check
          --quiet --wheel-dir ${DIST} ${STAGE}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pip wheel failed (${result}): scripts/setup.sh installs python3-pip, python3-setuptools "
          "and python3-wheel")
endif()
file(REMOVE_RECURSE ${STAGE}/build ${STAGE}/linkage.egg-info)
if(NOT EXISTS ${WHEEL})
  message(FATAL_ERROR "pip wheel made no ${WHEEL}")
endif()
